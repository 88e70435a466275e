package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.namenode.NamenodeKeys;
import io.creel.storage.local.LocalTierKeys;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A reader holding the block locations of a deleted file, whose blocks now belong to another
 * file, gets an error and never the other file's bytes — on the mapped same-host path and over TCP.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StaleBlockTest {
    private static final int MIB = 1 << 20;

    @ParameterizedTest(name = "local access {0}")
    @ValueSource(booleans = {true, false})
    void aStaleLocationNeverYieldsAnotherNodesBytes(boolean localAccess) throws Exception {
        // 8 blocks of DRAM and nothing else, and no reuse delay: A's blocks must go to B.
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L * MIB).servers(1, 0)
                .set(NamenodeKeys.REUSE_DELAY, "0ms"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf()
                     .with(LocalTierKeys.LOCAL_ACCESS, Boolean.toString(localAccess)))) {
            DirectWriter a = client.create("/a", NodeType.FILE).join().writer();
            ByteBuffer data = ByteBuffer.allocate(4 * MIB);
            TestData.fill(data, 1, 0);
            a.write(data).join();
            a.close().join();

            CreelNode oldA = client.lookup("/a").join();
            DirectReader reader = oldA.reader();
            ByteBuffer first = ByteBuffer.allocate(4 * MIB);
            assertEquals(4 * MIB, reader.read(first).join()); // caches every block location of A
            client.delete("/a", false).join();

            writeBFillingTheTier(client);

            ByteBuffer again = ByteBuffer.allocate(4 * MIB);
            try {
                int n = oldA.read(0, again).join();
                again.flip();
                // If anything came back it must be A's own bytes, never B's.
                TestData.verify(again, 1, 0, "read through a stale location (" + n + " bytes)");
                fail("a read of deleted /a whose blocks were reused should fail, but returned " + n + " bytes");
            } catch (CompletionException e) {
                ErrorCode code = CreelException.unwrap(e).code();
                assertTrue(code == ErrorCode.STALE_BLOCK || code == ErrorCode.NOT_FOUND,
                        "expected STALE_BLOCK or NOT_FOUND, got " + CreelException.unwrap(e));
            }
        }
    }

    /** Writes B over every free block; retries while A's blocks are still being released. */
    private static void writeBFillingTheTier(CreelClient client) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try {
                DirectWriter b = client.create("/b", NodeType.FILE).join().writer();
                ByteBuffer data = ByteBuffer.allocate(7 * MIB);
                TestData.fill(data, 2, 0);
                b.write(data).join();
                b.close().join();
                return;
            } catch (CompletionException e) {
                if (CreelException.unwrap(e).code() != ErrorCode.OUT_OF_SPACE || System.nanoTime() > deadline) {
                    throw e;
                }
                client.delete("/b", false).exceptionally(t -> null).join();
                Thread.sleep(100);
            }
        }
    }
}
