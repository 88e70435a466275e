package io.creel.minicluster;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.EventLoops;
import io.creel.namenode.NamenodeKeys;
import io.creel.namenode.NamenodeServer;
import io.creel.storage.StorageKeys;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole Creel cluster in one process: namenodes and any number of DRAM and disk storage servers
 * on localhost. {@code bin/creel local} runs one; integration tests and {@code bin/creel bench --local}
 * run many, on random ports.
 */
public final class MiniCluster implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(MiniCluster.class);

    private final CreelConf clientConf;
    private final EventLoops loops;
    /** Replaced in place when a namenode restarts. */
    private final List<NamenodeServer> namenodes;
    private final List<CreelConf> namenodeConfs;
    /** Replaced in place when a storage server restarts; {@code null} while one is stopped. */
    private final List<StorageServerRuntime> servers = new java.util.concurrent.CopyOnWriteArrayList<>();
    /** What each storage server was started with, by index, so that it can start again. */
    private final List<ServerStart> serverStarts = new ArrayList<>();
    /** Directories this cluster made for itself and removes at close. */
    private final List<Path> ownDirectories = new ArrayList<>();

    private MiniCluster(CreelConf clientConf, EventLoops loops, List<NamenodeServer> namenodes,
                         List<CreelConf> namenodeConfs) {
        this.clientConf = clientConf;
        this.loops = loops;
        this.namenodes = new java.util.concurrent.CopyOnWriteArrayList<>(namenodes);
        this.namenodeConfs = List.copyOf(namenodeConfs);
    }

    /** Starts building a cluster. */
    public static Builder builder() {
        return new Builder();
    }

    /** Configuration for clients of this cluster (its namenode address and the cluster's settings). */
    public CreelConf clientConf() {
        return clientConf;
    }

    /** The (first) namenode's address, {@code creel://127.0.0.1:port}. */
    public HostPort address() {
        return clientConf.get(ConfKeys.NAMENODE_ADDRESS).get(0);
    }

    /** The first namenode. */
    public NamenodeServer namenode() {
        return namenodes.get(0);
    }

    /** Every namenode, in partition order. */
    public List<NamenodeServer> namenodes() {
        return List.copyOf(namenodes);
    }

    /**
     * Stops the namenode and starts a new one on the same port and configuration, as after a
     * namenode crash; the storage servers keep running and register again when their heartbeat is
     * not recognised. With {@code creel.namenode.log.dir} the new namenode restores the namespace.
     */
    public NamenodeServer restartNamenode() {
        return restartNamenode(0);
    }

    /** Restarts namenode {@code index} (see {@link #restartNamenode()}). */
    public NamenodeServer restartNamenode(int index) {
        NamenodeServer old = namenodes.get(index);
        int port = old.port();
        old.close();
        NamenodeServer fresh = NamenodeServer.start(namenodeConfs.get(index), "127.0.0.1", port, loops);
        namenodes.set(index, fresh);
        return fresh;
    }

    /** The storage servers that run, in start order (a stopped one is left out). */
    public List<StorageServerRuntime> storageServers() {
        return servers.stream().filter(java.util.Objects::nonNull).toList();
    }

    /** How many storage servers this cluster has, running or stopped (the indexes of the calls below). */
    public int storageServerCount() {
        return servers.size();
    }

    /** The tier ("dram" or "disk") of storage server {@code index}. */
    public String storageServerTier(int index) {
        return serverStarts.get(index).tier();
    }

    /** Storage server {@code index}, or {@code null} while it is stopped. */
    public StorageServerRuntime storageServer(int index) {
        return servers.get(index);
    }

    /**
     * Stops storage server {@code index} as a crash looks to everyone else: its port closes, same-host
     * clients see its liveness end, the namenodes stop hearing from it. A DRAM or disk server that is
     * not persistent ({@code creel.storage.persistent}) loses its data; a persistent one keeps its
     * files for {@link #startStorageServer}. Does nothing if it is stopped already.
     */
    public void stopStorageServer(int index) {
        StorageServerRuntime s = servers.get(index);
        if (s != null) {
            servers.set(index, null);
            s.close();
        }
    }

    /**
     * Starts storage server {@code index} again with its configuration and waits until every
     * namenode has registered it. A persistent server comes back with its files, token and port (the
     * namenodes give it its old id); any other comes back as a new server with an empty medium on a
     * new port. Stops it first if it runs.
     */
    public StorageServerRuntime startStorageServer(int index) {
        stopStorageServer(index);
        ServerStart how = serverStarts.get(index);
        StorageServerRuntime s = StorageServerRuntime.start(how.conf(), how.tier(), loops);
        servers.set(index, s);
        s.awaitRegistered(clientConf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT).toMillis());
        return s;
    }

    /** Stops every server and deletes their files. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (StorageServerRuntime s : servers) {
            if (s == null) {
                continue;
            }
            try {
                s.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        namenodes.forEach(NamenodeServer::close);
        loops.close();
        ownDirectories.forEach(MiniCluster::deleteTree);
        if (first != null) {
            throw first;
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            // Leftover files of a stopped cluster are harmless; say so rather than fail the close.
            LOG.warn("cannot remove {}: {}", dir, e.toString());
        }
    }

    /** Settings of a local cluster. */
    public static final class Builder {
        private int port;
        private int namenodeCount = 1;
        private long dramSize = 512L << 20;
        private long diskSize = 2L << 30;
        private int dramServers = 1;
        private int diskServers = 1;
        private int hosts = 1;
        private Path dramDir;
        private Path diskDir;
        private final List<Long> sizeClasses = new ArrayList<>();
        private long sizeClassDram = -1;
        private boolean temporaryDirectories;
        private final Map<String, String> settings = new LinkedHashMap<>();

        private Builder() {
        }

        /** Namenode port; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Number of namenodes (hash partitions); the first listens on {@link #port}, the others on free ports. */
        public Builder namenodes(int count) {
            if (count < 1) {
                throw new IllegalArgumentException("a cluster needs at least one namenode");
            }
            this.namenodeCount = count;
            return this;
        }

        /** Bytes per DRAM server; 0 servers if 0. */
        public Builder dram(long bytes) {
            this.dramSize = bytes;
            return this;
        }

        /** Bytes per disk server. */
        public Builder disk(long bytes) {
            this.diskSize = bytes;
            return this;
        }

        /**
         * Spreads the storage servers over {@code count} loopback addresses (127.0.0.1, 127.0.0.2,
         * ...), which the namenode takes for as many hosts: server i (DRAM servers first) is on host
         * {@code i % count}. Copies of replicated blocks go to different hosts, so a test of
         * replication needs at least as many as its factor.
         */
        public Builder hosts(int count) {
            if (count < 1 || count > 250) {
                throw new IllegalArgumentException("hosts: 1 to 250, not " + count);
            }
            this.hosts = count;
            return this;
        }

        /** Number of DRAM and disk storage servers. */
        public Builder servers(int dram, int disk) {
            this.dramServers = dram;
            this.diskServers = disk;
            return this;
        }

        /**
         * Adds, for each of {@code blockSizes} (powers of two smaller than {@code creel.block.size}), a
         * size-class DRAM server ({@code creel.storage.block.size}) next to each DRAM server, on its
         * host and of its size. Namenodes give their blocks to first blocks of Files and KeyValues that
         * small (see {@code creel.namenode.first.block.size}). They start after the DRAM and disk
         * servers, so those keep their indices.
         */
        public Builder sizeClasses(long... blockSizes) {
            sizeClasses.clear();
            for (long b : blockSizes) {
                sizeClasses.add(b);
            }
            return this;
        }

        /** Bytes of each size-class server (default: those of a DRAM server, {@link #dram}). */
        public Builder sizeClassDram(long bytes) {
            this.sizeClassDram = bytes;
            return this;
        }

        /** Directory for DRAM region files (default: {@code creel.storage.dram.path}). */
        public Builder dramDir(Path dir) {
            this.dramDir = dir;
            return this;
        }

        /** Directory for disk-tier files (default: {@code creel.storage.disk.path}). */
        public Builder diskDir(Path dir) {
            this.diskDir = dir;
            return this;
        }

        /**
         * Keeps the servers' files in fresh directories (DRAM under /dev/shm where it exists) that
         * the cluster removes when it closes, whatever the configured paths say.
         */
        public Builder temporaryDirectories() {
            this.temporaryDirectories = true;
            return this;
        }

        /** Any other configuration key, for every server and for clients. */
        public Builder set(String key, String value) {
            settings.put(key, value);
            return this;
        }

        public Builder set(io.creel.common.conf.ConfKey<?> key, String value) {
            return set(key.name(), value);
        }

        /** Starts the namenode, then the storage servers, and waits until all are registered. */
        public MiniCluster start() {
            CreelConf base = CreelConf.of(settings);
            List<Path> made = temporaryDirectories ? makeTemporaryDirectories() : List.of();
            EventLoops loops = EventLoops.create(base, "creel-local");
            List<NamenodeServer> nns = new ArrayList<>();
            MiniCluster cluster = null;
            try {
                List<String> addresses = new ArrayList<>();
                List<CreelConf> confs = new ArrayList<>();
                String logDir = base.get(NamenodeKeys.LOG_DIR);
                for (int i = 0; i < namenodeCount; i++) {
                    // Each namenode keeps its own log.
                    CreelConf c = logDir.isEmpty() || namenodeCount == 1 ? base
                            : base.with(NamenodeKeys.LOG_DIR, Path.of(logDir, "nn-" + i).toString());
                    NamenodeServer nn = NamenodeServer.start(c, "127.0.0.1", i == 0 ? port : 0, loops);
                    nns.add(nn);
                    confs.add(c);
                    addresses.add(new HostPort("127.0.0.1", nn.port()).toUri());
                }
                Map<String, String> withAddress = new LinkedHashMap<>(settings);
                withAddress.put(ConfKeys.NAMENODE_ADDRESS.name(), String.join(",", addresses));
                CreelConf clusterConf = CreelConf.of(withAddress);
                cluster = new MiniCluster(clusterConf, loops, nns, confs);
                cluster.ownDirectories.addAll(made);
                for (int i = 0; i < dramServers; i++) {
                    cluster.serverStarts.add(new ServerStart("dram", serverConf(clusterConf, "dram", i, i)));
                }
                for (int i = 0; i < diskServers; i++) {
                    cluster.serverStarts.add(new ServerStart("disk", serverConf(clusterConf, "disk", i,
                            dramServers + i)));
                }
                for (long size : sizeClasses) {
                    for (int i = 0; i < dramServers; i++) {
                        CreelConf c = serverConf(clusterConf, "dram", i, i, "dram-" + (size >> 10) + "k-");
                        c = c.with(StorageKeys.BLOCK_SIZE, Long.toString(size));
                        if (sizeClassDram >= 0) {
                            c = c.with(LocalTierKeys.DRAM_SIZE, Long.toString(sizeClassDram));
                        }
                        cluster.serverStarts.add(new ServerStart("dram", c));
                    }
                }
                for (ServerStart how : cluster.serverStarts) {
                    cluster.servers.add(StorageServerRuntime.start(how.conf(), how.tier(), loops));
                }
                for (StorageServerRuntime s : cluster.servers) {
                    s.awaitRegistered(clusterConf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT).toMillis());
                }
                return cluster;
            } catch (RuntimeException e) {
                if (cluster != null) {
                    cluster.close();
                } else {
                    nns.forEach(NamenodeServer::close);
                    loops.close();
                    made.forEach(MiniCluster::deleteTree);
                }
                throw e;
            }
        }

        private List<Path> makeTemporaryDirectories() {
            try {
                Path disk = Files.createTempDirectory("creel-minicluster-disk");
                Path shm = Path.of("/dev/shm");
                Path dram = Files.isDirectory(shm) && Files.isWritable(shm)
                        ? Files.createTempDirectory(shm, "creel-minicluster") : disk.resolve("dram");
                Files.createDirectories(dram);
                dramDir = dram;
                diskDir = disk;
                return dram.startsWith(disk) ? List.of(disk) : List.of(dram, disk);
            } catch (IOException e) {
                throw new CreelException(ErrorCode.CONFIGURATION, "cannot make the cluster's temporary directories: "
                        + e.getMessage(), e);
            }
        }

        /**
         * The configuration of one storage server. Persistent servers ({@code creel.storage.persistent}) need a
         * directory each, so server {@code i} of a tier uses {@code <tier dir>/<tier>-<i>}: the
         * same directory, hence the same files, token and port, each time the cluster starts.
         */
        private CreelConf serverConf(CreelConf conf, String tier, int i, int overall) {
            return serverConf(conf, tier, i, overall, tier + "-");
        }

        /** {@link #serverConf(CreelConf, String, int, int)}, its persistent directory named {@code prefix + i}. */
        private CreelConf serverConf(CreelConf conf, String tier, int i, int overall, String prefix) {
            boolean persistent = conf.get(StorageKeys.PERSISTENT);
            Map<String, String> s = new LinkedHashMap<>(conf.explicitSettings());
            String host = "127.0.0." + (1 + overall % hosts);
            s.put(StorageKeys.BIND_HOST.name(), host);
            s.put(StorageKeys.ADVERTISE_HOST.name(), host);
            s.put(StorageKeys.PORT.name(), "0");
            if (tier.equals("dram")) {
                s.put(LocalTierKeys.DRAM_SIZE.name(), Long.toString(dramSize));
                Path dir = dramDir != null ? dramDir : Path.of(conf.get(LocalTierKeys.DRAM_PATH));
                s.put(LocalTierKeys.DRAM_PATH.name(), (persistent ? dir.resolve(prefix + i) : dir).toString());
            } else {
                s.put(LocalTierKeys.DISK_SIZE.name(), Long.toString(diskSize));
                Path dir = diskDir != null ? diskDir : Path.of(conf.get(LocalTierKeys.DISK_PATH));
                s.put(LocalTierKeys.DISK_PATH.name(), (persistent ? dir.resolve(prefix + i) : dir).toString());
            }
            return CreelConf.of(s);
        }
    }

    /** How one storage server is started: its tier and configuration. */
    private record ServerStart(String tier, CreelConf conf) {
    }
}
