package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.namenode.NamenodeKeys;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9, fault 1, as a user met it: a cluster filled up, one block freed, then an 80 KiB write
 * (64 KiB blocks) closed at once. The second block cannot be had, so the write fails with
 * OUT_OF_SPACE — and so must the close, not with a commit's complaint about the length; the lease
 * is given back at once, and a value that could not be replaced keeps its old bytes.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class FailedWriteTest {
    private static final int BLOCK = 64 << 10;
    private static final int WRITE = 80 << 10;

    @Test
    void aWriteThatRanOutOfSpaceFailsItsCloseWithOutOfSpaceAndReleasesTheLease() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.servers(1, 0).dram(16L * BLOCK)
                .set("creel.block.size", "64k").set(NamenodeKeys.REUSE_DELAY, "0ms"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            client.create("/t", NodeType.TABLE).join();
            byte[] oldValue = TestData.bytes(7, 0, 1000);
            client.putValue("/t", "k", ByteBuffer.wrap(oldValue)).join();
            int files = fill(client);
            client.delete("/fill-0", false).join(); // exactly one block is free again

            CreelNode x = client.create("/x", NodeType.FILE).join(); // takes that block
            DirectWriter w = x.writer();
            ByteBuffer data = ByteBuffer.allocate(WRITE);
            TestData.fill(data, 9, 0);
            CompletableFuture<Void> write = w.write(data);
            CompletionException closed = assertThrows(CompletionException.class, () -> w.close().join());
            assertEquals(ErrorCode.OUT_OF_SPACE, CreelException.unwrap(closed).code(),
                    "the close reports the write's failure: " + CreelException.unwrap(closed));
            assertEquals(ErrorCode.OUT_OF_SPACE, CreelException.unwrap(
                    assertThrows(CompletionException.class, write::join)).code());

            CreelNode again = client.openForAppend("/x").join(); // no LEASE_CONFLICT: the failed close gave it back
            assertEquals(0, again.length(), "nothing of the failed write was published");
            again.writer().close().join();

            // The same for a value: the replacement fails, and the key keeps its old bytes.
            client.delete("/x", false).join();
            ByteBuffer big = ByteBuffer.allocate(WRITE);
            TestData.fill(big, 10, 0);
            CompletionException put = assertThrows(CompletionException.class,
                    () -> client.putValue("/t", "k", big).join());
            assertEquals(ErrorCode.OUT_OF_SPACE, CreelException.unwrap(put).code(), CreelException.unwrap(put).toString());
            ByteBuffer value = client.getValue("/t", "k").join();
            assertEquals(oldValue.length, value.remaining());
            TestData.verify(value, 7, 0, "/t/k after a failed replacement");

            // Nothing already written was harmed.
            for (int i = 1; i < files; i++) {
                CreelNode f = client.lookup("/fill-" + i).join();
                ByteBuffer back = ByteBuffer.allocate(BLOCK);
                assertEquals(BLOCK, (int) f.read(0, back).join());
                TestData.verify(back.flip(), 100 + i, 0, "/fill-" + i);
            }
        }
    }

    /** Creates one-block Files until the tier is full; returns how many there are. */
    private static int fill(CreelClient client) {
        for (int i = 0; ; i++) {
            CreelNode f;
            try {
                f = client.create("/fill-" + i, NodeType.FILE).join();
            } catch (CompletionException e) {
                assertEquals(ErrorCode.OUT_OF_SPACE, CreelException.unwrap(e).code(), CreelException.unwrap(e).toString());
                assertTrue(i > 4, "several files fit before the tier is full: " + i);
                return i;
            }
            ByteBuffer b = ByteBuffer.allocate(BLOCK);
            TestData.fill(b, 100 + i, 0);
            f.writer().write(b).join();
            f.writer().close().join();
        }
    }
}
