package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.StableHash;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.ServerStatus;
import io.creel.minicluster.MiniCluster;
import io.creel.minicluster.cluster.model.CuttableProxy;
import io.creel.namenode.NamenodeServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 23, expiring nodes end to end, with a 3 s session timeout: a client JVM killed with -9
 * holding session-bound directories (1,000 Files in one, on two namenode partitions) loses them,
 * blocks and all, within the timeout plus one heartbeat; a live client keeps its nodes across a
 * restart of both namenodes and a network cut shorter than the timeout, and loses them once it
 * stops (unless it handed them over).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ExpiringNodesTest {
    static final long TIMEOUT_MILLIS = 3_000;
    static final long HEARTBEAT_MILLIS = 1_000;

    @TempDir
    Path tmp;

    static Clusters.Running start(Path logDir) {
        return Clusters.start(b -> {
            b.namenodes(2).servers(1, 0).dram(64L << 20)
                    .set("creel.block.size", "16k").set("creel.storage.region.size", "4m")
                    .set("creel.namenode.session.timeout", TIMEOUT_MILLIS + "ms")
                    .set("creel.namenode.reuse.delay", "200ms");
            if (logDir != null) {
                b.set("creel.namenode.log.dir", logDir.toString());
            }
        });
    }

    /** A top-level name the stable hash puts on {@code partition} of 2. */
    static String nameOn(int partition, String prefix) {
        for (int i = 0; ; i++) {
            if (StableHash.partition(prefix + i, 2) == partition) {
                return "/" + prefix + i;
            }
        }
    }

    static boolean exists(CreelClient c, String path) {
        try {
            c.lookup(path).join();
            return true;
        } catch (java.util.concurrent.CompletionException e) {
            CreelException ce = CreelException.unwrap(e);
            assertEquals(ErrorCode.NOT_FOUND, ce.code(), ce.getMessage());
            return false;
        }
    }

    /** Blocks in use or waiting out the reuse delay, over both namenodes. */
    static long blocksHeld(MiniCluster cluster) {
        long held = 0;
        for (NamenodeServer nn : cluster.namenodes()) {
            for (ServerStatus s : nn.status().servers()) {
                held += s.usedBlocks() + s.pendingBlocks();
            }
        }
        return held;
    }

    static long nodes(MiniCluster cluster) {
        return cluster.namenodes().stream().mapToLong(NamenodeServer::nodeCount).sum();
    }

    /** Polls {@code condition} every 20 ms; returns the milliseconds it took, or fails after {@code maxMillis}. */
    static long await(BooleanSupplier condition, long maxMillis, String what) throws InterruptedException {
        long start = System.nanoTime();
        while (!condition.getAsBoolean()) {
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            if (waited > maxMillis) {
                throw new AssertionError(what + " did not happen within " + maxMillis + " ms");
            }
            Thread.sleep(20);
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    @Test
    void aKilledClientsDirectoriesGoWithTheirThousandFilesWithinTheTimeoutPlusOneHeartbeat() throws Exception {
        try (Clusters.Running running = start(null);
             CreelClient observer = CreelClient.connect(running.cluster.clientConf())) {
            MiniCluster cluster = running.cluster;
            String app = nameOn(0, "app-");
            String broadcasts = nameOn(1, "broadcast-");
            for (int partition = 0; partition < 2; partition++) {
                // The root's listing of each partition takes its block now, not with the owner's directory.
                observer.create(nameOn(partition, "kept-"), NodeType.DIRECTORY).join();
            }
            long nodesBefore = nodes(cluster);
            long blocksBefore = blocksHeld(cluster);

            Path log = tmp.resolve("owner.log");
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-XX:TieredStopAtLevel=1", "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    ExpiringOwner.class.getName(), "1000", "5000", app, broadcasts,
                    ConfKeys.NAMENODE_ADDRESS.name() + "=" + cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS).stream()
                            .map(HostPort::toUri).reduce((a, b) -> a + "," + b).orElseThrow(),
                    "creel.block.size=16k", "creel.client.session.heartbeat=" + HEARTBEAT_MILLIS + "ms"));
            Process owner = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                await(() -> read(log).contains("ready") || !owner.isAlive(), 90_000, "the owner's 2,000 creates");
                assertTrue(owner.isAlive(), "the owner failed:\n" + read(log));
                assertEquals(nodesBefore + 2 + 2000, nodes(cluster), "two directories of 1,000 Files each");
                assertTrue(blocksHeld(cluster) >= blocksBefore + 2000, "each File holds a block");
                String session = read(log).substring(read(log).indexOf("ready ") + 6).strip();
                assertTrue(observer.lookup(app).join().info().expiry().owner().equals(session),
                        "stat names the owner's session");
                assertEquals(2, cluster.namenodes().stream().mapToLong(NamenodeServer::expiringNodes).sum(),
                        "one expiring directory on each namenode");

                // Alive for longer than a timeout: its heartbeats keep both directories.
                Thread.sleep(TIMEOUT_MILLIS + HEARTBEAT_MILLIS);
                assertTrue(exists(observer, app) && exists(observer, broadcasts));

                owner.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                long gone = await(() -> !exists(observer, app) && !exists(observer, broadcasts),
                        TIMEOUT_MILLIS + HEARTBEAT_MILLIS, "removal of the killed owner's directories");
                assertTrue(gone >= TIMEOUT_MILLIS - HEARTBEAT_MILLIS - 100, "removed after " + gone
                        + " ms: not before the owner's last heartbeat is a whole timeout old");
                assertEquals(nodesBefore, nodes(cluster), "every File went with its directory");
                assertEquals(2, cluster.namenodes().stream().mapToLong(NamenodeServer::expiredNodes).sum());
                assertEquals(0, cluster.namenodes().stream().mapToLong(NamenodeServer::expiringNodes).sum());
                try {
                    await(() -> blocksHeld(cluster) == blocksBefore, 5_000, "the Files' blocks to be free again");
                } catch (AssertionError e) {
                    throw new AssertionError(e.getMessage() + ": " + blocksHeld(cluster) + " blocks held, "
                            + blocksBefore + " before the owner started", e);
                }
            } finally {
                owner.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aLiveClientKeepsItsNodesAcrossANamenodeRestartAndAShortCutAndLosesThemOnceItStops() throws Exception {
        try (Clusters.Running running = start(tmp.resolve("logs"))) {
            MiniCluster cluster = running.cluster;
            List<CuttableProxy> proxies = new ArrayList<>();
            for (NamenodeServer nn : cluster.namenodes()) {
                proxies.add(new CuttableProxy(new HostPort("127.0.0.1", nn.port())));
            }
            CreelConf viaProxies = cluster.clientConf()
                    .with(ConfKeys.NAMENODE_ADDRESS, String.join(",", proxies.stream().map(p -> p.address().toUri()).toList()))
                    .with(io.creel.client.ClientKeys.SESSION_HEARTBEAT, "500ms");
            String a = nameOn(0, "live-");
            String b = nameOn(1, "live-");
            String dead = nameOn(0, "dead-");
            CreateOptions session = CreateOptions.defaults().withExpiry(Expiry.session());
            try (CreelClient owner = CreelClient.connect(viaProxies);
                 CreelClient heir = CreelClient.connect(cluster.clientConf());
                 CreelClient observer = CreelClient.connect(cluster.clientConf())) {
                for (String dir : List.of(a, b)) {
                    owner.create(dir, NodeType.DIRECTORY, session).join();
                    owner.create(dir + "/f", NodeType.FILE).thenCompose(f -> f.writer().close()).join();
                }
                try (CreelClient gone = CreelClient.connect(cluster.clientConf())) {
                    gone.create(dead, NodeType.DIRECTORY, session).join();
                }

                // Both namenodes restart: every owner gets a whole timeout again, live or not.
                long restarting = System.nanoTime();
                cluster.restartNamenode(0);
                cluster.restartNamenode(1);
                await(() -> !exists(observer, dead), TIMEOUT_MILLIS + HEARTBEAT_MILLIS + 500,
                        "removal of the closed client's directory after the restart");
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarting);
                assertTrue(waited >= TIMEOUT_MILLIS - 50, "the restart gave its owner a whole timeout, not "
                        + waited + " ms");
                assertTrue(exists(observer, a + "/f") && exists(observer, b + "/f"),
                        "the live owner's heartbeats renewed its nodes on both restarted namenodes");

                // A cut of the owner's network path, shorter than the timeout.
                proxies.forEach(p -> p.down(true));
                Thread.sleep(TIMEOUT_MILLIS / 2);
                proxies.forEach(p -> p.down(false));
                Thread.sleep(TIMEOUT_MILLIS);
                assertTrue(exists(observer, a + "/f") && exists(observer, b + "/f"),
                        "a cut shorter than the timeout costs the owner nothing");

                // Only the owner hands a node over; the heir's heartbeats keep it after the owner stops.
                CreelException refused = CreelException.unwrap(org.junit.jupiter.api.Assertions.assertThrows(
                        Exception.class, () -> heir.handOver(b, heir.sessionId(), Expiry.session()).join()));
                assertEquals(ErrorCode.INVALID_ARGUMENT, refused.code());
                assertTrue(refused.getMessage().contains("only its owner"), refused.getMessage());
                assertEquals(heir.sessionId(), owner.handOver(b, heir.sessionId(), Expiry.session()).join()
                        .expiry().owner());
                owner.close();
                await(() -> !exists(observer, a), TIMEOUT_MILLIS + HEARTBEAT_MILLIS,
                        "removal of the stopped owner's directory");
                assertTrue(exists(observer, b + "/f"), "the handed-over directory lives on with its heir");
                assertFalse(observer.lookup(b).join().info().expiry() == null);
            } finally {
                proxies.forEach(CuttableProxy::close);
            }
        }
    }

    private static String read(Path log) {
        try {
            return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
