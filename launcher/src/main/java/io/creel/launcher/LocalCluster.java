package io.creel.launcher;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.EventLoops;
import io.creel.common.storage.runtime.StorageServerRuntime;
import io.creel.namenode.NamenodeServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A whole Creel cluster in one process: a namenode and any number of DRAM and disk storage
 * servers on localhost. {@code bin/creel local} runs one; integration tests run many, on random ports.
 */
public final class LocalCluster implements AutoCloseable {
    private final CreelConf clientConf;
    private final EventLoops loops;
    private volatile NamenodeServer namenode;
    private final List<StorageServerRuntime> servers = new ArrayList<>();

    private LocalCluster(CreelConf clientConf, EventLoops loops, NamenodeServer namenode) {
        this.clientConf = clientConf;
        this.loops = loops;
        this.namenode = namenode;
    }

    /** Starts building a cluster. */
    public static Builder builder() {
        return new Builder();
    }

    /** Configuration for clients of this cluster (its namenode address and the cluster's settings). */
    public CreelConf clientConf() {
        return clientConf;
    }

    /** The namenode's address, {@code creel://localhost:port}. */
    public HostPort address() {
        return clientConf.get(ConfKeys.NAMENODE_ADDRESS).get(0);
    }

    public NamenodeServer namenode() {
        return namenode;
    }

    /**
     * Stops the namenode and starts a new one on the same port and configuration, as after a
     * namenode crash; the storage servers keep running and register again when their heartbeat is
     * not recognised. With {@code creel.namenode.log.dir} the new namenode restores the namespace.
     */
    public NamenodeServer restartNamenode() {
        int port = namenode.port();
        namenode.close();
        namenode = NamenodeServer.start(clientConf, "127.0.0.1", port, loops);
        return namenode;
    }

    /** The storage servers, in start order. */
    public List<StorageServerRuntime> storageServers() {
        return List.copyOf(servers);
    }

    /** Stops every server and deletes their files. */
    @Override
    public void close() {
        RuntimeException first = null;
        for (StorageServerRuntime s : servers) {
            try {
                s.close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        namenode.close();
        loops.close();
        if (first != null) {
            throw first;
        }
    }

    /** Settings of a local cluster. */
    public static final class Builder {
        private int port;
        private long dramSize = 512L << 20;
        private long diskSize = 2L << 30;
        private int dramServers = 1;
        private int diskServers = 1;
        private Path dramDir;
        private Path diskDir;
        private final Map<String, String> settings = new LinkedHashMap<>();

        private Builder() {
        }

        /** Namenode port; 0 (the default) picks a free one. */
        public Builder port(int port) {
            this.port = port;
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

        /** Number of DRAM and disk storage servers. */
        public Builder servers(int dram, int disk) {
            this.dramServers = dram;
            this.diskServers = disk;
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

        /** Any other configuration key, for every server and for clients. */
        public Builder set(String key, String value) {
            settings.put(key, value);
            return this;
        }

        public Builder set(io.creel.common.conf.ConfKey<?> key, String value) {
            return set(key.name(), value);
        }

        /** Starts the namenode, then the storage servers, and waits until all are registered. */
        public LocalCluster start() {
            CreelConf base = CreelConf.of(settings);
            EventLoops loops = EventLoops.create(base, "creel-local");
            NamenodeServer nn = null;
            LocalCluster cluster = null;
            try {
                nn = NamenodeServer.start(base, "127.0.0.1", port, loops);
                Map<String, String> withAddress = new LinkedHashMap<>(settings);
                withAddress.put(ConfKeys.NAMENODE_ADDRESS.name(), new HostPort("127.0.0.1", nn.port()).toUri());
                CreelConf clusterConf = CreelConf.of(withAddress);
                cluster = new LocalCluster(clusterConf, loops, nn);
                for (int i = 0; i < dramServers; i++) {
                    cluster.servers.add(startServer(clusterConf, "dram", i, loops));
                }
                for (int i = 0; i < diskServers; i++) {
                    cluster.servers.add(startServer(clusterConf, "disk", i, loops));
                }
                for (StorageServerRuntime s : cluster.servers) {
                    s.awaitRegistered(clusterConf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT).toMillis());
                }
                return cluster;
            } catch (RuntimeException e) {
                if (cluster != null) {
                    cluster.close();
                } else {
                    if (nn != null) {
                        nn.close();
                    }
                    loops.close();
                }
                throw e;
            }
        }

        /**
         * Starts one storage server. Persistent servers ({@code creel.storage.persistent}) need a
         * directory each, so server {@code i} of a tier uses {@code <tier dir>/<tier>-<i>}: the
         * same directory, hence the same files, token and port, each time the cluster starts.
         */
        private StorageServerRuntime startServer(CreelConf conf, String tier, int i, EventLoops loops) {
            boolean persistent = conf.get(ConfKeys.STORAGE_PERSISTENT);
            Map<String, String> s = new LinkedHashMap<>(conf.explicitSettings());
            s.put(ConfKeys.STORAGE_BIND_HOST.name(), "127.0.0.1");
            s.put(ConfKeys.STORAGE_ADVERTISE_HOST.name(), "127.0.0.1");
            s.put(ConfKeys.STORAGE_PORT.name(), "0");
            if (tier.equals("dram")) {
                s.put(ConfKeys.STORAGE_DRAM_SIZE.name(), Long.toString(dramSize));
                Path dir = dramDir != null ? dramDir : Path.of(conf.get(ConfKeys.STORAGE_DRAM_PATH));
                s.put(ConfKeys.STORAGE_DRAM_PATH.name(), (persistent ? dir.resolve("dram-" + i) : dir).toString());
            } else {
                s.put(ConfKeys.STORAGE_DISK_SIZE.name(), Long.toString(diskSize));
                Path dir = diskDir != null ? diskDir : Path.of(conf.get(ConfKeys.STORAGE_DISK_PATH));
                s.put(ConfKeys.STORAGE_DISK_PATH.name(), (persistent ? dir.resolve("disk-" + i) : dir).toString());
            }
            return StorageServerRuntime.start(CreelConf.of(s), tier, loops);
        }
    }
}
