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
     * @param blockSize      the cluster's block size; a server's is that or, for a size-class server, a
     *                       smaller power of two; any other is refused
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
    public record ServerView(StorageServerInfo info, boolean live, boolean draining, boolean decommissioned,
                             long heartbeatAgeMillis) {
        /** "live", "draining", "dead" or "decommissioned", as STATUS reports it. */
        public String state() {
            if (decommissioned) {
                return "decommissioned";
            }
            if (!live) {
                return "dead";
            }
            return draining ? "draining" : "live";
        }
    }

    private static final class Entry {
        StorageServerInfo info;
        long lastHeartbeat;
        /** Set when the same address registered again with a new token: the old medium is gone. */
        boolean replaced;
        /** No new blocks go here; it leaves once it holds none. */
        boolean draining;
        /** Drained and gone: its heartbeats are told so, and it is not allocated from again. */
        boolean decommissioned;
        /**
         * Known only from the namenode's log: the server must register (not just heartbeat) so this
         * namenode instance claims its regions back before using it.
         */
        boolean restoredOnly;
        /** When it was restored from the log (for {@link #notBackSinceRestart}). */
        long restoredAt;

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
        if (info.blockSize() > blockSize || blockSize % info.blockSize() != 0) {
            throw new CreelException(ErrorCode.CONFIGURATION, "storage server " + info.address() + " uses block size "
                    + info.blockSize() + " but this cluster's creel.block.size is " + blockSize
                    + "; a server's blocks are the cluster's size or, for a size-class server, a smaller power of two");
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
        if (old != null && old.decommissioned && old.info.localToken() == info.localToken()) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "storage server " + address + " was decommissioned; "
                    + "restart it with a fresh medium to rejoin");
        }
        if (old != null && !old.replaced && old.info.localToken() == info.localToken()) {
            old.info = info.withServerId(old.info.serverId());
            old.lastHeartbeat = now;
            old.restoredOnly = false;
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
        long now = clock.getAsLong();
        Entry e = new Entry(info.withServerId(nextId++), now - timeoutMillis - 1);
        e.restoredOnly = true;
        e.restoredAt = now;
        if (old != null) {
            // Two identities at one address in the log: only the newest can come back.
            e.replaced = true;
        } else {
            byAddress.put(info.address(), e);
        }
        byId.put(e.info.serverId(), e);
        return e.info;
    }

    /** What a heartbeat learns. */
    public enum Beat {
        /** Known and alive. */
        KNOWN,
        /** Unknown, replaced, or a token mismatch: the server should register again. */
        UNKNOWN,
        /** Decommissioned: the server should stop. */
        DECOMMISSIONED
    }

    /** Records a heartbeat. */
    public synchronized Beat heartbeat(int serverId, long localToken) {
        Entry e = byId.get(serverId);
        if (e == null || e.replaced || e.restoredOnly || e.info.localToken() != localToken) {
            return Beat.UNKNOWN;
        }
        if (e.decommissioned) {
            return Beat.DECOMMISSIONED;
        }
        e.lastHeartbeat = clock.getAsLong();
        return Beat.KNOWN;
    }

    /**
     * Starts draining the server at {@code address} (host:port): no new blocks are allocated there.
     *
     * @throws CreelException NOT_FOUND if no such server is registered
     */
    public synchronized StorageServerInfo decommission(String address) {
        Entry e = byAddress.get(address);
        if (e == null || e.replaced) {
            throw new CreelException(ErrorCode.NOT_FOUND, "no storage server " + address + " is registered (servers: "
                    + String.join(", ", byAddress.keySet()) + ")");
        }
        e.draining = true;
        return e.info;
    }

    /** A draining server that holds no blocks any more is decommissioned. */
    public synchronized void drained(int serverId) {
        Entry e = byId.get(serverId);
        if (e != null && e.draining) {
            e.decommissioned = true;
        }
    }

    /** Servers that are draining and not yet decommissioned. */
    public synchronized List<StorageServerInfo> draining() {
        List<StorageServerInfo> out = new ArrayList<>();
        for (Entry e : byId.values()) {
            if (e.draining && !e.decommissioned && !e.replaced) {
                out.add(e.info);
            }
        }
        return out;
    }

    /** Every registered server, dead and drained ones included, in id order. */
    public synchronized List<StorageServerInfo> allServers() {
        List<StorageServerInfo> out = new ArrayList<>(byId.size());
        byId.values().forEach(e -> out.add(e.info));
        return out;
    }

    /** Whether the server is registered, not replaced, and heard from within the timeout. */
    public synchronized boolean isLive(int serverId) {
        Entry e = byId.get(serverId);
        return e != null && isLive(e, clock.getAsLong());
    }

    /** The server with this id, or null. */
    public synchronized ServerView view(int serverId) {
        Entry e = byId.get(serverId);
        if (e == null) {
            return null;
        }
        long now = clock.getAsLong();
        return new ServerView(e.info, isLive(e, now), e.draining, e.decommissioned,
                Math.max(0, now - e.lastHeartbeat));
    }

    /**
     * Servers of {@code storageClass} this namenode knows only from its log (restored at its start)
     * that have not registered again since, while a live one would have (within the server timeout
     * of the restart): their blocks, and their free space, may still come back. One silent for
     * longer is dead like any other server, so a class it belonged to can be out of space.
     */
    public synchronized int notBackSinceRestart(String storageClass) {
        long now = clock.getAsLong();
        int n = 0;
        for (Entry e : byId.values()) {
            if (e.restoredOnly && !e.replaced && !e.decommissioned && now - e.restoredAt <= timeoutMillis
                    && e.info.storageClass().equals(storageClass)) {
                n++;
            }
        }
        return n;
    }

    /** Whether server {@code serverId} is declared dead (see {@link #declaredDead}). */
    public synchronized boolean isDeclaredDead(int serverId) {
        Entry e = byId.get(serverId);
        long now = clock.getAsLong();
        return e != null && !e.decommissioned && !isLive(e, now)
                && !(e.restoredOnly && now - e.restoredAt <= timeoutMillis);
    }

    /**
     * Servers declared dead: silent for longer than the timeout (or replaced by a restart with a new
     * medium), not decommissioned — and, for one known only from the log, not within the timeout of
     * the restart, while it may still register again.
     */
    public synchronized java.util.Set<Integer> declaredDead() {
        long now = clock.getAsLong();
        java.util.Set<Integer> out = new java.util.TreeSet<>();
        for (Entry e : byId.values()) {
            if (!e.decommissioned && !isLive(e, now) && !(e.restoredOnly && now - e.restoredAt <= timeoutMillis)) {
                out.add(e.info.serverId());
            }
        }
        return out;
    }

    /** Live servers of {@code storageClass} that take new blocks (not draining), in id order. */
    public synchronized List<StorageServerInfo> liveServers(String storageClass) {
        return liveServers(storageClass, (int) blockSize);
    }

    /** The cluster's block size ({@code creel.block.size}): a whole block's. */
    public long blockSize() {
        return blockSize;
    }

    /**
     * The live, non-draining servers of {@code storageClass} whose blocks are {@code size} bytes: the
     * cluster's block size for whole blocks, a smaller one for a size class's ({@link #sizeClasses}).
     */
    public synchronized List<StorageServerInfo> liveServers(String storageClass, int size) {
        long now = clock.getAsLong();
        List<StorageServerInfo> out = new ArrayList<>();
        for (Entry e : byId.values()) {
            if (isLive(e, now) && !e.draining && e.info.storageClass().equals(storageClass)
                    && e.info.blockSize() == size) {
                out.add(e.info);
            }
        }
        return out;
    }

    /** The block sizes smaller than the cluster's that live servers of {@code storageClass} offer, ascending. */
    public synchronized List<Integer> sizeClasses(String storageClass) {
        long now = clock.getAsLong();
        java.util.TreeSet<Integer> out = new java.util.TreeSet<>();
        for (Entry e : byId.values()) {
            if (isLive(e, now) && !e.draining && e.info.storageClass().equals(storageClass)
                    && e.info.blockSize() < blockSize) {
                out.add(e.info.blockSize());
            }
        }
        return List.copyOf(out);
    }

    /** Every server ever registered (including dead ones), in id order. */
    public synchronized List<ServerView> servers() {
        long now = clock.getAsLong();
        List<ServerView> out = new ArrayList<>(byId.size());
        for (Entry e : byId.values()) {
            out.add(new ServerView(e.info, isLive(e, now), e.draining, e.decommissioned,
                    Math.max(0, now - e.lastHeartbeat)));
        }
        return out;
    }

    private boolean isLive(Entry e, long now) {
        return !e.replaced && !e.decommissioned && now - e.lastHeartbeat <= timeoutMillis;
    }
}
