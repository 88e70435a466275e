package io.creel.storage.rdma.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import java.net.InetSocketAddress;
import java.util.EnumSet;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** How RDMA failures become Creel errors: never one of the codes that say the data itself is wrong. */
class RdmaFailuresTest {
    private static final InetSocketAddress PEER = new InetSocketAddress("10.0.0.9", 4791);

    @Test
    void noRdmaFailureBecomesAnErrorAboutTheData() {
        EnumSet<ErrorCode> aboutTheData = EnumSet.of(ErrorCode.STALE_BLOCK, ErrorCode.NOT_FOUND,
                ErrorCode.INVALID_ARGUMENT);
        for (Kind k : Kind.values()) {
            assertTrue(!aboutTheData.contains(RdmaFailures.code(k)), k + " -> " + RdmaFailures.code(k));
        }
        assertEquals(ErrorCode.UNAVAILABLE, RdmaFailures.code(Kind.UNREACHABLE));
        assertEquals(ErrorCode.UNAVAILABLE, RdmaFailures.code(Kind.REMOTE_ACCESS));
        assertEquals(ErrorCode.TIMEOUT, RdmaFailures.code(Kind.TIMEOUT));
        assertEquals(ErrorCode.INTERNAL, RdmaFailures.code(Kind.INVALID_ARGUMENT));
    }

    @Test
    void theMessageSaysWhatFailedWhereAndWhy() {
        CreelException e = RdmaFailures.of(new CompletionException(new RdmaException(Kind.UNREACHABLE, PEER,
                "RDMA READ of 8 bytes from " + PEER + " failed: the peer did not answer")),
                "rdma read of block 4 from storage server h:9000");
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertEquals("rdma read of block 4 from storage server h:9000 failed: RDMA READ of 8 bytes from " + PEER
                + " failed: the peer did not answer", e.getMessage());
    }

    @Test
    void aCreelErrorIsPassedOnAsItIsAndAnythingElseIsInternal() {
        CreelException stale = new CreelException(ErrorCode.STALE_BLOCK, "block 3 was freed and reused");
        assertSame(stale, RdmaFailures.of(new CompletionException(stale), "x"));
        CreelException odd = RdmaFailures.of(new IllegalStateException("boom"), "rdma write");
        assertEquals(ErrorCode.INTERNAL, odd.code());
        assertTrue(odd.getMessage().startsWith("rdma write failed: java.lang.IllegalStateException: boom"));
    }
}
