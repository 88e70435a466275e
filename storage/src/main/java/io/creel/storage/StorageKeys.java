package io.creel.storage;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
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
        return List.of(BIND_HOST, PORT, ADVERTISE_HOST, RACK, CLASS, REGION_SIZE, HEARTBEAT_INTERVAL, PERSISTENT);
    }
}
