package io.creel.bench;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.EventLoops;
import io.creel.common.storage.runtime.StorageServerRuntime;
import io.creel.namenode.NamenodeServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The cluster of {@code bench --local}: a namenode, one DRAM and one disk storage server in this
 * JVM on loopback ports, files in fresh directories removed at close.
 *
 * <p>It is built here from the namenode and storage-server runtime APIs rather than with the
 * launcher's {@code LocalCluster} because the launcher depends on this module (it registers the
 * bench command); a small builder here avoids a dependency cycle without moving a class that the
 * launcher's end-to-end tests use.
 */
public final class BenchCluster implements AutoCloseable {
    private final EventLoops loops;
    private final NamenodeServer namenode;
    private final StorageServerRuntime dram;
    private final StorageServerRuntime disk;
    private final CreelConf clientConf;
    private final Path diskDir;
    private final Path dramDir;

    private BenchCluster(EventLoops loops, NamenodeServer namenode, StorageServerRuntime dram,
                         StorageServerRuntime disk, CreelConf clientConf, Path diskDir, Path dramDir) {
        this.loops = loops;
        this.namenode = namenode;
        this.dram = dram;
        this.disk = disk;
        this.clientConf = clientConf;
        this.diskDir = diskDir;
        this.dramDir = dramDir;
    }

    /**
     * Starts the cluster.
     *
     * @param base     settings for every server and the clients (e.g. the reuse delay)
     * @param dramSize bytes of the DRAM tier
     * @param diskSize bytes of the disk tier
     */
    public static BenchCluster start(CreelConf base, long dramSize, long diskSize) {
        Path dir;
        Path shmDir;
        try {
            dir = Files.createTempDirectory("creel-bench-disk");
            Path shm = Path.of("/dev/shm");
            shmDir = Files.isDirectory(shm) ? Files.createTempDirectory(shm, "creel-bench") : dir.resolve("dram");
            Files.createDirectories(shmDir);
        } catch (java.io.IOException e) {
            throw new io.creel.common.error.CreelException(io.creel.common.error.ErrorCode.UNAVAILABLE,
                    "cannot make the bench cluster's directories: " + e.getMessage());
        }
        EventLoops loops = EventLoops.create(base, "creel-bench-cluster");
        NamenodeServer nn = null;
        StorageServerRuntime d = null;
        try {
            nn = NamenodeServer.start(base, "127.0.0.1", 0, loops);
            Map<String, String> s = new LinkedHashMap<>(base.explicitSettings());
            s.put(ConfKeys.NAMENODE_ADDRESS.name(), new HostPort("127.0.0.1", nn.port()).toUri());
            CreelConf clientConf = CreelConf.of(s);
            s.put(ConfKeys.STORAGE_BIND_HOST.name(), "127.0.0.1");
            s.put(ConfKeys.STORAGE_ADVERTISE_HOST.name(), "127.0.0.1");
            s.put(ConfKeys.STORAGE_PORT.name(), "0");
            s.put(ConfKeys.STORAGE_DRAM_SIZE.name(), Long.toString(dramSize));
            s.put(ConfKeys.STORAGE_DRAM_PATH.name(), shmDir.toString());
            s.put(ConfKeys.STORAGE_DISK_SIZE.name(), Long.toString(diskSize));
            s.put(ConfKeys.STORAGE_DISK_PATH.name(), dir.toString());
            CreelConf serverConf = CreelConf.of(s);
            d = StorageServerRuntime.start(serverConf, "dram", loops);
            StorageServerRuntime k = StorageServerRuntime.start(serverConf, "disk", loops);
            long wait = clientConf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT).toMillis();
            d.awaitRegistered(wait);
            k.awaitRegistered(wait);
            return new BenchCluster(loops, nn, d, k, clientConf, dir, shmDir);
        } catch (RuntimeException e) {
            if (d != null) {
                d.close();
            }
            if (nn != null) {
                nn.close();
            }
            loops.close();
            throw e;
        }
    }

    /** Configuration for clients: the namenode address and the cluster's settings. */
    public CreelConf clientConf() {
        return clientConf;
    }

    public NamenodeServer namenode() {
        return namenode;
    }

    @Override
    public void close() {
        disk.close();
        dram.close();
        namenode.close();
        loops.close();
        deleteTree(dramDir);
        deleteTree(diskDir);
    }

    private static void deleteTree(Path p) {
        if (!Files.exists(p)) {
            return;
        }
        try (var walk = Files.walk(p)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (java.io.IOException e) {
            // Leftover temporary files are harmless; say so rather than fail the report.
            System.err.println("bench: could not remove " + p + ": " + e.getMessage());
        }
    }
}
