package io.creel.hadoop;

import io.creel.minicluster.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;

/**
 * One in-JVM Creel cluster for every test of this module (started on first use, stopped by a
 * shutdown hook): a namenode, a DRAM server with its region on /dev/shm and a disk server in a
 * temporary directory. Blocks are 64 KiB, since every file holds at least one, and freed blocks
 * come back after 100 ms, since the contract suites create and delete many files.
 */
public final class TestCluster {
    /** Bytes per block in the test cluster. */
    public static final long BLOCK_SIZE = 64 << 10;

    private static MiniCluster cluster;

    private TestCluster() {
    }

    /** The running cluster. */
    public static synchronized MiniCluster get() {
        if (cluster == null) {
            cluster = start();
        }
        return cluster;
    }

    /** {@code creel://127.0.0.1:port/}, the cluster's file system URI. */
    public static URI uri() {
        return URI.create(get().address().toUri() + "/");
    }

    /** A Hadoop configuration for the cluster, with the Creel settings the clients must share. */
    public static Configuration configuration() {
        return configure(new Configuration());
    }

    /** Adds the cluster's settings to {@code conf} and returns it. */
    public static Configuration configure(Configuration conf) {
        conf.set(CreelHadoopConf.NAMENODE_ADDRESS, get().address().toUri());
        conf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + "creel.block.size", Long.toString(BLOCK_SIZE));
        conf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + "creel.net.event.loops", "2");
        conf.set(CreelHadoopConf.PASS_THROUGH_PREFIX + "creel.client.buffer.size", "256k");
        return conf;
    }

    private static MiniCluster start() {
        try {
            Path shm = Path.of("/dev/shm");
            Path dramDir = Files.isDirectory(shm) && Files.isWritable(shm)
                    ? Files.createTempDirectory(shm, "creel-hadoop-test-")
                    : Files.createTempDirectory("creel-hadoop-test-dram-");
            Path diskDir = Files.createTempDirectory("creel-hadoop-test-disk-");
            MiniCluster c = MiniCluster.builder().dramDir(dramDir).diskDir(diskDir)
                    .dram(256L << 20).disk(256L << 20)
                    .set("creel.net.event.loops", "2")
                    .set("creel.block.size", Long.toString(BLOCK_SIZE))
                    .set("creel.namenode.reuse.delay", "100ms")
                    .start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    c.close();
                } finally {
                    delete(dramDir);
                    delete(diskDir);
                }
            }, "creel-test-cluster-stop"));
            return c;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
