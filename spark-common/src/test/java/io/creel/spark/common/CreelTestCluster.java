package io.creel.spark.common;

import io.creel.storage.StorageKeys;
import io.creel.namenode.NamenodeKeys;
import io.creel.common.conf.ConfKeys;
import io.creel.minicluster.MiniCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.spark.SparkConf;

/**
 * A Creel cluster for Spark tests: a namenode, a DRAM server (its regions under /dev/shm, so
 * same-host clients map them) and a disk server, 64 KiB blocks (a small map output still takes a
 * whole block), and fast failure detection so a killed server is noticed within seconds.
 */
public final class CreelTestCluster implements AutoCloseable {
    /** spark-shuffle's {@code ShuffleManager}, as {@code spark.shuffle.manager} names it. */
    public static final String SHUFFLE_MANAGER = "io.creel.spark.shuffle.CreelShuffleManager";

    private final MiniCluster cluster;
    private final Path dram;
    private final Path disk;

    private CreelTestCluster(MiniCluster cluster, Path dram, Path disk) {
        this.cluster = cluster;
        this.dram = dram;
        this.disk = disk;
    }

    public static CreelTestCluster start(long dramBytes, long diskBytes) {
        return start(dramBytes, diskBytes, 1);
    }

    /** A cluster with {@code dramServers} DRAM servers of {@code dramBytes} each and one disk server. */
    public static CreelTestCluster start(long dramBytes, long diskBytes, int dramServers) {
        return start(dramBytes, diskBytes, dramServers, 1);
    }

    /**
     * {@link #start(long, long, int)} with the servers spread over {@code hosts} loopback addresses,
     * so that replicated map outputs ({@code spark.creel.shuffle.replication}) find servers on as
     * many hosts.
     */
    public static CreelTestCluster start(long dramBytes, long diskBytes, int dramServers, int hosts) {
        return start(dramBytes, diskBytes, dramServers, hosts, java.util.Map.of());
    }

    /** {@link #start(long, long, int, int)} with further Creel settings (e.g. a short session timeout). */
    public static CreelTestCluster start(long dramBytes, long diskBytes, int dramServers, int hosts,
                                         java.util.Map<String, String> settings) {
        try {
            Path dram = Files.createTempDirectory(Path.of("/dev/shm"), "creel-spark-test-");
            Path disk = Files.createTempDirectory("creel-spark-test-disk-");
            MiniCluster.Builder b = MiniCluster.builder().dram(dramBytes).disk(diskBytes).servers(dramServers, 1)
                    .hosts(hosts).dramDir(dram).diskDir(disk)
                    .set(ConfKeys.BLOCK_SIZE, "64k")
                    .set(StorageKeys.REGION_SIZE, "4m")
                    .set(StorageKeys.HEARTBEAT_INTERVAL, "200ms")
                    .set(NamenodeKeys.SERVER_TIMEOUT, "1500ms")
                    .set(NamenodeKeys.REUSE_DELAY, "1s")
                    .set(ConfKeys.CLIENT_REQUEST_TIMEOUT, "10s")
                    .set(ConfKeys.CLIENT_CONNECT_TIMEOUT, "2s");
            settings.forEach(b::set);
            MiniCluster c = b.start();
            return new CreelTestCluster(c, dram, disk);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Where the DRAM servers keep their region files. */
    public Path dramDir() {
        return dram;
    }

    /** Where the disk server keeps its files. */
    public Path diskDir() {
        return disk;
    }

    public MiniCluster cluster() {
        return cluster;
    }

    /** The namenode address as executors and drivers reach it. */
    public String address() {
        return cluster.address().toUri();
    }

    /**
     * Spark settings that send every shuffle through this cluster: {@link #clientConf} with
     * spark-shuffle's manager, named (this kit is below spark-shuffle and cannot load it).
     */
    public SparkConf sparkConf(String master, String appName) {
        return sparkConf(address(), master, appName);
    }

    /** {@link #sparkConf(String, String)} for the cluster at {@code namenode}, in a JVM that did not start it. */
    public static SparkConf sparkConf(String namenode, String master, String appName) {
        return clientConf(namenode, master, appName).set("spark.shuffle.manager", SHUFFLE_MANAGER);
    }

    /**
     * Spark settings that reach this cluster (its address, its block size, short timeouts) with
     * Spark's own shuffle: what a test of the broadcasts alone starts from.
     */
    public SparkConf clientConf(String master, String appName) {
        return clientConf(address(), master, appName);
    }

    private static SparkConf clientConf(String namenode, String master, String appName) {
        return new SparkConf().setMaster(master).setAppName(appName)
                .set(SparkCreelConf.NAMENODE_ADDRESS, namenode)
                .set(SparkCreelConf.PASS_THROUGH_PREFIX + ConfKeys.BLOCK_SIZE.name(), "64k")
                .set(SparkCreelConf.PASS_THROUGH_PREFIX + ConfKeys.CLIENT_REQUEST_TIMEOUT.name(), "10s")
                .set(SparkCreelConf.PASS_THROUGH_PREFIX + ConfKeys.CLIENT_CONNECT_TIMEOUT.name(), "2s")
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.ui.enabled", "false")
                .set("spark.sql.shuffle.partitions", "8")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
    }

    /** Spark settings for the same job with Spark's own sort shuffle. */
    public static SparkConf vanillaConf(String master, String appName) {
        return new SparkConf().setMaster(master).setAppName(appName)
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.ui.enabled", "false")
                .set("spark.sql.shuffle.partitions", "8")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
    }

    @Override
    public void close() {
        try {
            cluster.close();
        } finally {
            deleteTree(dram);
            deleteTree(disk);
        }
    }

    /** Deletes {@code root} and everything under it, if it exists. */
    public static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
