package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 9, faults 4 and 5: a storage server closes while a client writes and reads. Until the
 * server timeout passes the namenode still allocates there; the writer has such blocks allocated
 * elsewhere and carries on. A reader of the dead server's blocks gets the same answer on every
 * transport: UNAVAILABLE naming the node and the server — a same-host client that maps the server's
 * files included (parameter: local access on or off).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DeadServerTest {
    private static final int BLOCK = 64 << 10;
    private static final int BEFORE = 6;
    private static final int AFTER = 10;

    @ParameterizedTest(name = "local access {0}")
    @ValueSource(booleans = {true, false})
    void aWriterCarriesOnPastAServerThatDiedAndReadersOfItsBlocksGetTheSameErrorOnEveryTransport(
            boolean localAccess) throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.servers(2, 0).dram(64L * BLOCK)
                .set("creel.block.size", "64k").set("creel.storage.region.size", "256k")
                .set("creel.storage.heartbeat.interval", "100ms")
                .set("creel.namenode.server.timeout", "60s") // the namenode goes on allocating on the dead server
                .set("creel.client.request.timeout", "10s").set("creel.client.connect.timeout", "2s"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf()
                     .with(LocalTierKeys.LOCAL_ACCESS, Boolean.toString(localAccess)))) {
            CreelNode file = client.create("/stream", NodeType.FILE).join();
            DirectWriter w = file.writer();
            for (int i = 0; i < BEFORE; i++) {
                writeBlock(w, i);
            }
            StorageServerRuntime victim = running.cluster.storageServers().get(1);
            String dead = victim.info().address();
            victim.close();

            for (int i = BEFORE; i < BEFORE + AFTER; i++) {
                writeBlock(w, i); // round-robin still names the dead server for every other block
            }
            assertEquals((long) (BEFORE + AFTER) * BLOCK, w.close().join().length());

            CreelNode written = client.lookup("/stream").join();
            List<BlockLocation> blocks = client.blockLocations(written, 0, written.length()).join();
            for (int i = BEFORE; i < BEFORE + AFTER; i++) {
                assertNotEquals(dead, blocks.get(i).server().address(), "block " + i + " went to the live server");
                ByteBuffer back = ByteBuffer.allocate(BLOCK);
                assertEquals(BLOCK, (int) written.read((long) i * BLOCK, back).join());
                TestData.verify(back.flip(), i, 0, "block " + i);
            }

            int lost = -1;
            for (int i = 0; i < BEFORE && lost < 0; i++) {
                if (blocks.get(i).server().address().equals(dead)) {
                    lost = i;
                }
            }
            assertTrue(lost >= 0, "round-robin put an early block on the server that died");
            long at = (long) lost * BLOCK;
            CompletionException e = assertThrows(CompletionException.class,
                    () -> written.read(at, ByteBuffer.allocate(BLOCK)).join());
            CreelException ce = CreelException.unwrap(e);
            assertEquals(ErrorCode.UNAVAILABLE, ce.code(), ce.toString());
            assertTrue(ce.getMessage().contains("/stream") && ce.getMessage().contains(dead),
                    "names the node and the server: " + ce.getMessage());
        }
    }

    private static void writeBlock(DirectWriter w, int i) {
        ByteBuffer b = ByteBuffer.allocate(BLOCK);
        TestData.fill(b, i, 0);
        w.write(b).join();
    }
}
