package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.common.error.CreelException;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.RequestType;
import io.creel.common.rpc.RpcProbe;
import io.creel.common.rpc.RpcProbes;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A writer that passes the middle of a block allocates the next one ahead of time. A close right
 * after such a write gives the lease back only once that allocation is answered: the namenode never
 * sees a MAP under a lease already given back, which it would refuse (LEASE_CONFLICT) and every
 * monitor would count as an error although the user saw none.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class CloseAfterAllocationAheadTest {
    private static final int BLOCK = 64 << 10;
    private static final int ROUNDS = 40;

    @Test
    void aCloseRightAfterAWritePastHalfABlockLeavesTheNamenodeNothingToRefuse() throws Exception {
        List<String> refused = new CopyOnWriteArrayList<>();
        Function<String, RpcProbe> probes = server -> new RpcProbe() {
            @Override
            public void answered(RequestType op, CreelException error, long nanos) {
                if (error != null) {
                    refused.add(server + ": " + op + " " + error.code() + " (" + error.getMessage() + ")");
                }
            }

            @Override
            public void connectionOpened() {
            }

            @Override
            public void connectionClosed() {
            }
        };
        RpcProbes.install(probes);
        try (Clusters.Running running = Clusters.start(b -> b.servers(2, 0).dram(64L * BLOCK)
                .set("creel.block.size", "64k"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            for (int i = 0; i < ROUNDS; i++) {
                CreelNode f = client.create("/ahead-" + i, NodeType.FILE).join();
                DirectWriter w = f.writer();
                ByteBuffer data = ByteBuffer.allocate(BLOCK + BLOCK / 2 + 1); // ends past the middle of block 1
                TestData.fill(data, i, 0);
                w.write(data);
                w.close().join();
                assertEquals(BLOCK + BLOCK / 2 + 1, client.lookup("/ahead-" + i).join().length());
                client.delete("/ahead-" + i, false).join();
            }
            assertTrue(refused.isEmpty(), "the namenode refused nothing: " + refused);
        } finally {
            RpcProbes.uninstall(probes);
        }
    }
}
