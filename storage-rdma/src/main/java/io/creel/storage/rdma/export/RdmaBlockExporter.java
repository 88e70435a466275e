package io.creel.storage.rdma.export;

import io.creel.common.conf.CreelConf;
import io.creel.common.security.RpcSecurity;
import io.creel.storage.rdma.ConnectionAdmission;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaListener;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import io.creel.storage.rdma.tier.RdmaExportLayout;
import io.creel.storage.rdma.tier.RdmaFabric;
import io.creel.storage.rdma.tier.RdmaTierKeys;
import io.creel.storage.spi.BlockExporter;
import io.creel.storage.spi.ExportContext;
import io.creel.storage.spi.Volume;
import io.creel.storage.spi.VolumeMemory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * "rdma": gives clients one-sided access to a DRAM volume. At start it registers the volume's
 * mapped block segments (read and write) and its tag table (read, write and compare-and-swap) with
 * the RNIC, listens for connections, and publishes in the server's description what a client needs
 * ({@link RdmaExportLayout}); from then on the server does no work per block: clients read and
 * write the registered memory and claim tags themselves. Found through {@link java.util.ServiceLoader}.
 *
 * <p>It declines (returns null) a volume without memory (disk) and, with {@code creel.rdma.enabled}
 * {@code auto}, a machine without RDMA, logging once what is missing; the server then runs over TCP
 * alone. With {@code true} a missing piece fails the server's start instead.
 */
public final class RdmaBlockExporter implements BlockExporter {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaBlockExporter.class);
    /** Reasons logged so far: each once per process. */
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    private final RdmaFabric fabric;

    /** For {@link java.util.ServiceLoader}: the process's devices. */
    public RdmaBlockExporter() {
        this(RdmaFabric.shared());
    }

    /** An exporter on {@code fabric} (tests: a fake network). */
    public RdmaBlockExporter(RdmaFabric fabric) {
        this.fabric = fabric;
    }

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public Export export(Volume volume, ExportContext context) {
        CreelConf conf = context.conf();
        if (RdmaTierKeys.disabled(conf)) {
            return null;
        }
        Optional<VolumeMemory> memory = volume.memory();
        if (memory.isEmpty()) {
            return decline(conf, context.serverName(), "its medium is not memory (" + volume.medium().describe()
                    + "): only DRAM volumes are served over RDMA");
        }
        String missing = fabric.unavailableReason();
        if (missing != null) {
            return decline(conf, context.serverName(), missing);
        }
        try {
            InetAddress address = fabric.localAddress(conf);
            return Exported.start(fabric, address, conf, memory.get(), context.serverName());
        } catch (RdmaException e) {
            return decline(conf, context.serverName(), e.getMessage());
        }
    }

    /** Logs why (once per reason), and returns null; or fails the start when RDMA is required. */
    private static Export decline(CreelConf conf, String server, String why) {
        if (RdmaTierKeys.required(conf)) {
            throw new CreelException(ErrorCode.CONFIGURATION, server + ": cannot serve over RDMA ("
                    + RdmaTierKeys.ENABLED.name() + "=true): " + why);
        }
        if (SAID.add(why)) {
            LOG.info("{}: not served over RDMA: {}", server, why);
        }
        return null;
    }

    /** A running export: the device lease, the registrations and the listener. */
    static final class Exported implements Export {
        private final RdmaFabric.Lease lease;
        private final List<RegisteredMemory> registered;
        private final RdmaListener listener;
        private final Map<String, String> attributes;
        private final String server;
        private final AtomicBoolean closed = new AtomicBoolean();

        private Exported(RdmaFabric.Lease lease, List<RegisteredMemory> registered, RdmaListener listener,
                         Map<String, String> attributes, String server) {
            this.lease = lease;
            this.registered = registered;
            this.listener = listener;
            this.attributes = attributes;
            this.server = server;
        }

        static Exported start(RdmaFabric fabric, InetAddress address, CreelConf conf, VolumeMemory memory,
                              String server) throws RdmaException {
            RdmaFabric.Lease lease = fabric.acquire(address, RdmaTierKeys.settings(conf));
            List<RegisteredMemory> registered = new ArrayList<>();
            RdmaListener listener = null;
            try {
                RdmaDevice device = lease.device();
                List<RemoteRegion> segments = new ArrayList<>();
                for (ByteBuffer segment : memory.segments()) {
                    RegisteredMemory m = device.register(segment, MemoryAccess.REMOTE_READ_WRITE);
                    registered.add(m);
                    segments.add(m.remote());
                }
                AtomicSupport atomics = device.atomics();
                RegisteredMemory tags = device.register(memory.tags(),
                        atomics.available() ? MemoryAccess.REMOTE_ATOMIC : MemoryAccess.REMOTE_READ_WRITE);
                registered.add(tags);
                RemoteRegion probe = null;
                if (atomics.available()) {
                    // Clients compare-and-swap this word once per connection: a device pair that
                    // disagrees on the value (byte order) does not claim tags, and writes go over TCP.
                    ByteBuffer word = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
                    word.putLong(0, RdmaExportLayout.PROBE);
                    RegisteredMemory p = device.register(word, MemoryAccess.REMOTE_ATOMIC);
                    registered.add(p);
                    probe = new RemoteRegion(p.remote().address(), 8, p.rkey());
                }
                // With a cluster secret only clients that prove it get a connection, so only they can
                // use the keys published in the description (ConnectionAdmission).
                listener = device.listen(conf.get(RdmaTierKeys.PORT), new ConnectionAdmission.Gate(RpcSecurity.of(conf),
                        server + "'s rdma exporter", System::nanoTime));
                InetSocketAddress endpoint = new InetSocketAddress(address, listener.localAddress().getPort());
                RdmaExportLayout layout = new RdmaExportLayout(endpoint, segments, memory.blocksPerSegment(),
                        tags.remote(), probe, ByteOrder.nativeOrder(), atomics);
                LOG.info("{}: serving {} blocks over RDMA at {} on device {} ({} segment(s), atomics {})", server,
                        memory.blockCount(), endpoint, device.name(), segments.size(),
                        atomics.name().toLowerCase(Locale.ROOT));
                return new Exported(lease, registered, listener, Map.copyOf(layout.toAttributes()), server);
            } catch (RdmaException | RuntimeException e) {
                if (listener != null) {
                    listener.close();
                }
                deregister(registered, server);
                lease.close();
                throw e;
            }
        }

        @Override
        public Map<String, String> attributes() {
            return attributes;
        }

        /** Disconnects every client first, so no client touches the memory once it is deregistered. */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            listener.close();
            deregister(registered, server);
            lease.close();
        }

        int connectionCount() {
            return listener.connectionCount();
        }

        private static void deregister(List<RegisteredMemory> registered, String server) {
            for (RegisteredMemory m : registered) {
                try {
                    m.close();
                } catch (RdmaException e) {
                    LOG.warn("{}: {}", server, e.getMessage());
                }
            }
        }
    }
}
