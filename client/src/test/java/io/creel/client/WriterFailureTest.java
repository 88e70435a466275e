package io.creel.client;

import static io.creel.client.TestData.bytes;
import static io.creel.client.TestData.failure;
import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A writer that saw a failure can only fail, with that failure: whichever comes first, the failure
 * or the close, nothing is published beyond what was safely written, the close reports the write's
 * own error, and the lease is given back so the next writer can open the node.
 */
class WriterFailureTest {
    private static final int B = FakeCluster.BLOCK;

    @Test
    void aCloseIssuedWhileTheFailingWriteIsInFlightReportsThatWriteAndPublishesNothing() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            // The block is allocated (it came with the create); the transfer itself fails, later.
            cluster.storage.failWrites = ErrorCode.INVALID_ARGUMENT;
            cluster.storage.delayMillis = 100;
            CompletableFuture<Void> write = f.writer().write(ByteBuffer.wrap(bytes(B / 2, 1)));
            CompletableFuture<?> close = f.writer().close(); // at once, before the write has failed

            CreelException closed = failure(close);
            assertEquals(ErrorCode.INVALID_ARGUMENT, closed.code(), "the write's error, not a commit's: " + closed);
            assertTrue(closed.getMessage().contains("injected write failure"), closed.getMessage());
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(write).code());
            assertEquals(0, get(c.lookup("/f")).length(), "a close never reports bytes that were not written");
            assertTrue(get(c.openForAppend("/f")).isWritable(), "the failed close gave the lease back");
        }
    }

    @Test
    void aCloseAfterTheFailureReportsItTooAndGivesTheLeaseBack() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            byte[] safe = bytes(B + 100, 2);
            get(f.writer().write(ByteBuffer.wrap(safe)));
            get(f.writer().sync());
            cluster.storage.failWrites = ErrorCode.INVALID_ARGUMENT;
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(f.writer().write(ByteBuffer.wrap(bytes(B, 3)))).code());
            cluster.storage.failWrites = null;

            CreelException refused = failure(f.writer().write(ByteBuffer.wrap(bytes(10, 4))));
            assertEquals(ErrorCode.INVALID_ARGUMENT, refused.code(), "a failed writer accepts no more writes");
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(f.writer().close()).code());
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(f.writer().close()).code(), "the same outcome again");

            CreelNode again = get(c.openForAppend("/f"));
            assertEquals(safe.length, again.length(), "what was synced before the failure stays published");
            byte[] back = new byte[safe.length];
            assertEquals(safe.length, (int) get(again.read(0, ByteBuffer.wrap(back))));
            assertArrayEquals(safe, back);
        }
    }

    @Test
    void aFailedValueWriteLeavesTheKeysOldValueInPlace() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/t", NodeType.TABLE));
            byte[] old = bytes(300, 5);
            get(c.putValue("/t", "k", ByteBuffer.wrap(old)));

            cluster.storage.failWrites = ErrorCode.INVALID_ARGUMENT;
            cluster.storage.delayMillis = 50;
            CreelException e = failure(c.putValue("/t", "k", ByteBuffer.wrap(bytes(2 * B + 1, 6))));
            assertEquals(ErrorCode.INVALID_ARGUMENT, e.code(), e.toString());
            cluster.storage.failWrites = null;
            cluster.storage.delayMillis = 0;

            ByteBuffer value = get(c.getValue("/t", "k"));
            byte[] got = new byte[value.remaining()];
            value.get(got);
            assertArrayEquals(old, got, "a failed put never replaces the value (not even with an empty one)");
        }
    }

    @Test
    void aSyncWaitsForEveryEarlierWriteAndFailsWithTheFirstFailure() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            CreelNode f = get(c.create("/f", NodeType.FILE));
            cluster.storage.failWrites = ErrorCode.INVALID_ARGUMENT;
            cluster.storage.delayMillis = 100;
            f.writer().write(ByteBuffer.wrap(bytes(10, 7)));
            CreelException synced = failure(f.writer().sync());
            assertEquals(ErrorCode.INVALID_ARGUMENT, synced.code(), synced.toString());
            cluster.storage.failWrites = null;
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(f.writer().sync()).code(), "still failed");
            assertEquals(0, get(c.lookup("/f")).length());
        }
    }
}
