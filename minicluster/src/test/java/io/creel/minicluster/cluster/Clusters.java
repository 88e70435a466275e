package io.creel.minicluster.cluster;

import io.creel.common.protocol.ServerStatus;
import io.creel.minicluster.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Starts in-JVM clusters for tests: namenode plus DRAM and disk servers on random ports, DRAM
 * regions in a private directory on /dev/shm (a tmpfs, as in production) and disk files in a
 * temporary directory. Closing removes both.
 */
final class Clusters {
    private Clusters() {
    }

    /** A started cluster and its directories. */
    static final class Running implements AutoCloseable {
        final MiniCluster cluster;
        private final Path dramDir;
        private final Path diskDir;

        Running(MiniCluster cluster, Path dramDir, Path diskDir) {
            this.cluster = cluster;
            this.dramDir = dramDir;
            this.diskDir = diskDir;
        }

        @Override
        public void close() {
            try {
                cluster.close();
            } finally {
                delete(dramDir);
                delete(diskDir);
            }
        }
    }

    static Running start(Consumer<MiniCluster.Builder> settings) {
        try {
            Path shm = Path.of("/dev/shm");
            Path dramDir = Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "creel-test-") : Files.createTempDirectory("creel-test-dram-");
            Path diskDir = Files.createTempDirectory("creel-test-disk-");
            MiniCluster.Builder b = MiniCluster.builder().dramDir(dramDir).diskDir(diskDir)
                    .set("creel.net.event.loops", "2");
            settings.accept(b);
            try {
                return new Running(b.start(), dramDir, diskDir);
            } catch (RuntimeException e) {
                delete(dramDir);
                delete(diskDir);
                throw e;
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory tree, if it exists. */
    static void delete(Path dir) {
        if (dir == null || !Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Waits (20 s at most) until the namenode knows {@code count} storage servers, all live again after a restart. */
    static void awaitServersLive(MiniCluster cluster, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            List<ServerStatus> servers = cluster.namenode().status().servers();
            if (servers.size() == count && servers.stream().allMatch(s -> s.state().equals("live"))) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("storage servers did not rejoin the restarted namenode: " + servers);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
