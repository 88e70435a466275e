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
import io.creel.common.protocol.FsckReply;
import io.creel.common.protocol.ServerStatus;
import io.creel.storage.runtime.StorageServerRuntime;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Storage servers leave: drained on request, or dead; what that means for readers, fsck and report. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ServerLifecycleTest {
    private static final int MIB = 1 << 20;

    @Test
    void aDecommissionedServerGetsNoNewBlocksAndLeavesOnceItsBlocksAreFree() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.servers(2, 0).dram(16L * MIB)
                .set("creel.storage.region.size", "4m").set("creel.namenode.reuse.delay", "0ms")
                .set("creel.storage.heartbeat.interval", "100ms"));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            StorageServerRuntime leaving = running.cluster.storageServers().get(0);
            String address = leaving.info().address();
            writeFile(client, "/before", 8);

            List<ServerStatus> views = client.decommission(address).join();
            assertEquals("draining", views.get(0).state());
            assertTrue(views.get(0).usedBlocks() > 0, "round-robin put some of /before there");

            writeFile(client, "/after", 6);
            assertTrue(client.lookup("/after").join().length() == 6L * MIB);
            assertEquals(0, status(client, address).usedBlocks() - views.get(0).usedBlocks(),
                    "no new block went to the draining server");

            client.delete("/before", false).join();
            waitFor(() -> "decommissioned".equals(status(client, address).state()), "the server to be decommissioned");
            waitFor(leaving::isDecommissioned, "the server to learn it was decommissioned");
            CompletionException again = assertThrows(CompletionException.class, () -> client.decommission("nohost:1").join());
            assertEquals(ErrorCode.NOT_FOUND, CreelException.unwrap(again).code());
        }
    }

    @ParameterizedTest(name = "local access {0}")
    @ValueSource(booleans = {true, false})
    void blocksOnADeadServerFailFastNamingTheNodeAndTheServerAndFsckListsThem(boolean localAccess) throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.servers(2, 0).dram(16L * MIB)
                .set("creel.storage.region.size", "4m").set("creel.namenode.server.timeout", "1s")
                .set("creel.storage.heartbeat.interval", "100ms").set("creel.client.request.timeout", "5s")
                .set("creel.client.connect.timeout", "2s"));
             // Over TCP, or mapping the servers' files: a reader gets the same answer either way.
             CreelClient client = CreelClient.connect(running.cluster.clientConf()
                     .with(io.creel.storage.local.LocalTierKeys.LOCAL_ACCESS, Boolean.toString(localAccess)))) {
            writeFile(client, "/spread", 6);
            StorageServerRuntime victim = running.cluster.storageServers().get(1);
            String address = victim.info().address();
            victim.close();
            waitFor(() -> "dead".equals(status(client, address).state()), "the namenode to declare the server dead");

            FsckReply fsck = client.fsck("/").join();
            assertEquals(1, fsck.damaged().size());
            FsckReply.Damaged d = fsck.damaged().get(0);
            assertEquals("/spread", d.path());
            assertEquals(6, d.totalBlocks());
            assertTrue(d.lostBlocks() >= 1 && d.lostBlocks() < 6, "blocks alternate between the servers: " + d);
            assertTrue(d.servers().get(0).startsWith(address), d.servers().toString());

            java.io.StringWriter report = new java.io.StringWriter();
            java.io.StringWriter reportErr = new java.io.StringWriter();
            int rc = new picocli.CommandLine(new io.creel.cli.ReportCommand()).setOut(new java.io.PrintWriter(report))
                    .setErr(new java.io.PrintWriter(reportErr))
                    .execute("--conf", "creel.namenode.address=" + running.cluster.address().toUri());
            assertTrue(report.toString().contains(" dead "), report.toString());
            // A dead server is for an operator to look at: report says so in its exit code.
            assertEquals(io.creel.cli.ReportCommand.UNHEALTHY, rc, reportErr.toString());
            assertTrue(reportErr.toString().contains("storage server " + address + " is dead"), reportErr.toString());
            assertTrue(report.toString().contains("lost data: 1 of 1 nodes") && report.toString().contains("/spread: "),
                    "report names the node that lost data:\n" + report);

            CreelNode node = client.lookup("/spread").join();
            ByteBuffer all = ByteBuffer.allocate(6 * MIB);
            long start = System.nanoTime();
            CompletionException e = assertThrows(CompletionException.class, () -> node.reader().read(all).join());
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            CreelException ce = CreelException.unwrap(e);
            assertEquals(ErrorCode.UNAVAILABLE, ce.code(), ce.toString());
            assertTrue(ce.getMessage().contains("/spread"), "names the node: " + ce);
            assertTrue(ce.getMessage().contains(address), "names the server: " + ce);
            assertTrue(millis < 5000, "fails fast, took " + millis + " ms");
        }
    }

    private static void writeFile(CreelClient client, String path, int mib) {
        DirectWriter w = client.create(path, NodeType.FILE).join().writer();
        ByteBuffer b = ByteBuffer.allocate(mib * MIB);
        TestData.fill(b, 3, 0);
        w.write(b).join();
        w.close().join();
    }

    private static ServerStatus status(CreelClient client, String address) {
        return client.status().join().get(0).servers().stream().filter(s -> s.server().address().equals(address))
                .findFirst().orElseThrow();
    }

    private static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
