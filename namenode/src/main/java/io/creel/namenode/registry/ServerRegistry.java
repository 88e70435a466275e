package io.creel.namenode.registry;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * The storage servers a namenode knows: assigns ids at registration and tracks liveness from
 * heartbeats. Thread-safe; every method holds the registry's monitor briefly.
 */
public final class ServerRegistry {
    private final List<String> storageClasses;
    private final long blockSize;
    private final long timeoutMillis;
    private final LongSupplier clock;
    private final TreeMap<Integer, Entry> byId = new TreeMap<>();
    private final Map<String, Entry> byAddress = new HashMap<>();
    private int nextId = 1;

    /**
     * @param storageClasses the classes a server may belong to
     * @param blockSize      the cluster's block size; a server with another one is refused
     * @param timeoutMillis  a server silent for longer is dead (not allocated from)
     * @param clock          milliseconds, injectable for tests
     */
    public ServerRegistry(List<String> storageClasses, long blockSize, long timeoutMillis, LongSupplier clock) {
        this.storageClasses = List.copyOf(storageClasses);
        this.blockSize = blockSize;
        this.timeoutMillis = timeoutMillis;
        this.clock = clock;
    }

    /** What the registry knows about one server at one moment. */
    public record ServerView(StorageServerInfo info, boolean live, long heartbeatAgeMillis) {
        /** "live" or "dead", as STATUS reports it. */
        public String state() {
            return live ? "live" : "dead";
        }
    }

    private static final class Entry {
        StorageServerInfo info;
        long lastHeartbeat;
        /** Set when the same address registered again with a new token: the old medium is gone. */
        boolean replaced;

        Entry(StorageServerInfo info, long now) {
            this.info = info;
            this.lastHeartbeat = now;
        }
    }

    /**
     * Registers a server and returns its description with the assigned id. The same address with the
     * same token gets its old id back (a re-registration after a lost namenode connection); the same
     * address with a new token is a restarted server with a fresh medium and gets a new id, and the
     * old entry is dead from then on.
     */
    public synchronized StorageServerInfo register(StorageServerInfo info) {
        if (info.blockSize() != blockSize) {
            throw new CreelException(ErrorCode.CONFIGURATION, "storage server " + info.address() + " uses block size "
                    + info.blockSize() + " but this cluster's creel.block.size is " + blockSize
                    + "; every server and namenode must agree");
        }
        if (!storageClasses.contains(info.storageClass())) {
            throw new CreelException(ErrorCode.CONFIGURATION, "storage server " + info.address() + " has storage class '"
                    + info.storageClass() + "', which is not in creel.storage.classes ("
                    + String.join(",", storageClasses) + ")");
        }
        if (info.blockCount() <= 0) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "storage server " + info.address()
                    + " exports no blocks");
        }
        if (info.port() <= 0) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "storage server " + info.address()
                    + " has no data-plane port");
        }
        long now = clock.getAsLong();
        String address = info.address();
        Entry old = byAddress.get(address);
        if (old != null && !old.replaced && old.info.localToken() == info.localToken()) {
            old.info = info.withServerId(old.info.serverId());
            old.lastHeartbeat = now;
            return old.info;
        }
        if (old != null) {
            old.replaced = true;
        }
        Entry e = new Entry(info.withServerId(nextId++), now);
        byId.put(e.info.serverId(), e);
        byAddress.put(address, e);
        return e.info;
    }

    /**
     * Restart from a namenode log: a server that holds blocks of restored nodes gets an id now, and
     * is dead until it registers with the same address and token (then it keeps this id).
     */
    public synchronized StorageServerInfo restore(StorageServerInfo info) {
        Entry old = byAddress.get(info.address());
        if (old != null && old.info.localToken() == info.localToken()) {
            return old.info;
        }
        Entry e = new Entry(info.withServerId(nextId++), clock.getAsLong() - timeoutMillis - 1);
        if (old != null) {
            // Two identities at one address in the log: only the newest can come back.
            e.replaced = true;
        } else {
            byAddress.put(info.address(), e);
        }
        byId.put(e.info.serverId(), e);
        return e.info;
    }

    /** Records a heartbeat; false if the id is unknown, replaced, or the token does not match (register again). */
    public synchronized boolean heartbeat(int serverId, long localToken) {
        Entry e = byId.get(serverId);
        if (e == null || e.replaced || e.info.localToken() != localToken) {
            return false;
        }
        e.lastHeartbeat = clock.getAsLong();
        return true;
    }

    /** Live servers of {@code storageClass}, in id order. */
    public synchronized List<StorageServerInfo> liveServers(String storageClass) {
        long now = clock.getAsLong();
        List<StorageServerInfo> out = new ArrayList<>();
        for (Entry e : byId.values()) {
            if (isLive(e, now) && e.info.storageClass().equals(storageClass)) {
                out.add(e.info);
            }
        }
        return out;
    }

    /** Every server ever registered (including dead ones), in id order. */
    public synchronized List<ServerView> servers() {
        long now = clock.getAsLong();
        List<ServerView> out = new ArrayList<>(byId.size());
        for (Entry e : byId.values()) {
            out.add(new ServerView(e.info, isLive(e, now), Math.max(0, now - e.lastHeartbeat)));
        }
        return out;
    }

    private boolean isLive(Entry e, long now) {
        return !e.replaced && now - e.lastHeartbeat <= timeoutMillis;
    }
}
