package io.creel.storage;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.time.Duration;
import java.util.List;

/**
 * The keys of every storage server, whatever its tier: where it listens, what it advertises, its class, regions, heartbeats and persistence.
 * Registered as a {@link ConfKeySource}; {@code conf/creel-site.conf} documents each key.
 */
public final class StorageKeys implements ConfKeySource {
    public static final ConfKey<String> BIND_HOST = ConfKey.of("creel.storage.bind.host", "0.0.0.0",
            ConfValues::nonEmpty, "Interface a storage server listens on.");
    public static final ConfKey<Integer> PORT = ConfKey.of("creel.storage.port", "0",
            v -> ConfValues.parseInt(v, 0, 65535), "Port a storage server listens on; 0 picks a free port.");
    public static final ConfKey<String> ADVERTISE_HOST = ConfKey.of("creel.storage.advertise.host", "",
            v -> v, "Host name clients use to reach this storage server; empty means this machine's host name.");
    public static final ConfKey<String> RACK = ConfKey.of("creel.storage.rack", "", v -> v,
            "Rack or zone of this storage server, if any: the copies of a replicated block go to different racks while "
                    + "there are enough (and always to different hosts).");
    public static final ConfKey<String> CLASS = ConfKey.of("creel.storage.class", "", v -> v,
            "Storage class a storage server's blocks belong to; empty means the tier's name (dram, disk).");
    public static final ConfKey<Long> REGION_SIZE = ConfKey.of("creel.storage.region.size", "64m",
            ConfValues::parseSize,
            "Storage servers grant their blocks to namenodes in regions of this size (whole blocks, at least one).");
    public static final ConfKey<Long> BLOCK_SIZE = ConfKey.of("creel.storage.block.size", "0",
            StorageKeys::parseServerBlockSize,
            "Block size of this storage server; 0 means creel.block.size. A smaller power of two (at least 4k) makes it a "
                    + "size-class server: namenodes give its blocks to Files and KeyValues whose first block is that small.");
    public static final ConfKey<Duration> HEARTBEAT_INTERVAL = ConfKey.of("creel.storage.heartbeat.interval",
            "2s", ConfValues::parseDuration,
            "How often a storage server sends a heartbeat to each namenode and renews the liveness words same-host clients check.");
    public static final ConfKey<Boolean> PERSISTENT = ConfKey.of("creel.storage.persistent", "false",
            ConfValues::parseBoolean,
            "Keep a storage server's files (data, tags, token, port) when it stops and reuse them at start; one server per directory.");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public StorageKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(BIND_HOST, PORT, ADVERTISE_HOST, RACK, CLASS, REGION_SIZE, BLOCK_SIZE, HEARTBEAT_INTERVAL,
                PERSISTENT);
    }

    /**
     * The block size a storage server exports: {@code creel.storage.block.size}, else the cluster's
     * {@code creel.block.size}. A size-class server's must be smaller than the cluster's (namenodes
     * check that it divides it when it registers).
     */
    public static int blockSize(CreelConf conf) {
        long own = conf.get(BLOCK_SIZE);
        long cluster = conf.get(ConfKeys.BLOCK_SIZE);
        if (own > cluster) {
            throw new CreelException(ErrorCode.CONFIGURATION, BLOCK_SIZE.name() + " (" + ConfValues.formatSize(own)
                    + ") is larger than " + ConfKeys.BLOCK_SIZE.name() + " (" + ConfValues.formatSize(cluster)
                    + "); a storage server's blocks are at most the cluster's");
        }
        return (int) (own == 0 ? cluster : own);
    }

    private static long parseServerBlockSize(String v) {
        long size = ConfValues.parseSize(v);
        if (size != 0 && (size < 4096 || Long.bitCount(size) != 1)) {
            throw new IllegalArgumentException("a storage server's block size is 0 (the cluster's) or a power of two of "
                    + "at least 4k: " + v);
        }
        return size;
    }
}
