package io.creel.storage.nvmf.transport;

import io.creel.storage.nvmf.connect.Connectors;
import io.creel.storage.nvmf.format.NvmfAttributes.Digest;
import io.creel.storage.nvmf.io.ByteRangeIo;
import io.creel.storage.nvmf.io.SectorDevice;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.nvmf.target.TargetAddress;
import io.creel.storage.nvmf.target.TargetConnector;
import io.creel.storage.nvmf.target.TargetController;
import io.creel.storage.nvmf.target.TargetOptions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The NVMe-oF controllers of a client process: one per target (address, port, subsystem, fabric,
 * digests), shared by every transport and thread of the process, with one {@link ByteRangeIo} per
 * namespace (so read-modify-writes of partial sectors by two writers of the process never lose each
 * other's bytes). Counted by {@link Lease}s: the last lease of a target closes its controller, the
 * last controller of a fabric closes that fabric's threads. A controller that fails is forgotten at
 * once, so the next lease connects anew.
 */
public final class SharedTargets {
    private static final Logger LOG = LoggerFactory.getLogger(SharedTargets.class);
    private static final SharedTargets PROCESS = new SharedTargets();

    /** What makes two controllers interchangeable. */
    private record Key(TargetAddress address, Digest digest) {
    }

    /** A namespace as this process uses it. */
    public record SharedNamespace(TargetController controller, SectorDevice device, ByteRangeIo bytes) {
    }

    private final class Entry {
        final Key key;
        final CompletableFuture<TargetController> controller;
        final Map<Integer, CompletableFuture<SharedNamespace>> namespaces = new HashMap<>();
        int users;

        Entry(Key key, CompletableFuture<TargetController> controller) {
            this.key = key;
            this.controller = controller;
        }
    }

    private final Map<Key, Entry> entries = new HashMap<>();
    private final Map<Fabric, TargetConnector> connectors = new EnumMap<>(Fabric.class);
    private final Map<Fabric, Integer> entriesPerFabric = new EnumMap<>(Fabric.class);

    SharedTargets() {
    }

    /** The process's controllers. */
    public static SharedTargets process() {
        return PROCESS;
    }

    /** One user's hold on a namespace; {@link #close()} once done. */
    public final class Lease implements AutoCloseable {
        private final Entry entry;
        private final CompletableFuture<SharedNamespace> namespace;
        private boolean closed;

        private Lease(Entry entry, CompletableFuture<SharedNamespace> namespace) {
            this.entry = entry;
            this.namespace = namespace;
        }

        /** The namespace, once connected and identified; fails if either failed. */
        public CompletableFuture<SharedNamespace> namespace() {
            return namespace;
        }

        @Override
        public void close() {
            release(this);
        }
    }

    /**
     * A lease on namespace {@code nsid} of {@code address}, connecting a controller if the process has
     * none there (the first caller's options decide its queues and timeouts). Returns at once.
     */
    public synchronized Lease acquire(TargetAddress address, int nsid, TargetOptions options) {
        Key key = new Key(address, options.digest());
        Entry e = entries.get(key);
        if (e == null) {
            TargetConnector connector = connectors.computeIfAbsent(address.fabric(),
                    f -> Connectors.create(f, options.ioQueues(), "creel-nvmf-client-" + f.text()));
            e = new Entry(key, connector.connect(address, options));
            entries.put(key, e);
            entriesPerFabric.merge(address.fabric(), 1, Integer::sum);
            Entry created = e;
            e.controller.whenComplete((c, failed) -> {
                if (failed != null) {
                    LOG.info("cannot connect to the NVMe-oF target {}: {}", address, failed.getMessage());
                    forget(created);
                } else {
                    LOG.debug("client connected to {}", c.describe());
                    c.failure().thenAccept(why -> forget(created));
                }
            });
        }
        e.users++;
        Entry entry = e;
        CompletableFuture<SharedNamespace> ns = e.namespaces.computeIfAbsent(nsid, n -> entry.controller
                .thenCompose(c -> c.namespace(n).thenApply(d -> new SharedNamespace(c, d, new ByteRangeIo(d)))));
        return new Lease(e, ns);
    }

    /** Controllers of the process now (connected or connecting), for tests and logs. */
    public synchronized int controllers() {
        return entries.size();
    }

    /** A failed controller is forgotten, so the next lease connects again; its holders keep theirs until they close. */
    private synchronized void forget(Entry e) {
        if (entries.remove(e.key, e)) {
            dropEntry(e.key.address().fabric());
        }
    }

    private void release(Lease lease) {
        Entry e = lease.entry;
        boolean last;
        synchronized (this) {
            if (lease.closed) {
                return;
            }
            lease.closed = true;
            last = --e.users == 0;
            if (last && entries.remove(e.key, e)) {
                dropEntry(e.key.address().fabric());
            }
        }
        if (last) {
            e.controller.thenAccept(TargetController::close);
        }
        closeIdleConnectors();
    }

    private void dropEntry(Fabric fabric) {
        entriesPerFabric.merge(fabric, -1, Integer::sum);
    }

    /** Closes the threads of fabrics no controller uses any more. */
    private void closeIdleConnectors() {
        List<TargetConnector> idle = new ArrayList<>();
        synchronized (this) {
            for (Fabric f : Fabric.values()) {
                if (entriesPerFabric.getOrDefault(f, 0) == 0 && connectors.containsKey(f)) {
                    idle.add(connectors.remove(f));
                }
            }
        }
        idle.forEach(TargetConnector::close);
    }
}
