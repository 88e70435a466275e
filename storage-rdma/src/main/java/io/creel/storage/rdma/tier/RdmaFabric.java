package io.creel.storage.rdma.tier;

import io.creel.common.conf.CreelConf;
import io.creel.rdma.RdmaAvailability;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaProvider;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.disni.DisniRdmaProvider;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The RDMA devices one process shares: a storage server's exporter and the clients in the same JVM
 * (a mini cluster, {@code bin/creel local}) use one device per local address, opened at the first
 * use and closed when its last user lets go. {@link #shared()} is the process's, over DiSNI; tests
 * build their own over the in-memory network of this module's test-jar ({@code FakeRdmaNetwork}).
 */
public final class RdmaFabric {
    private static final RdmaFabric SHARED = new RdmaFabric(new DisniRdmaProvider(), RdmaFabric::detect);

    private final RdmaProvider provider;
    private final Supplier<String> availability;
    private final Map<InetAddress, Shared> devices = new HashMap<>();
    private String unavailable;
    private boolean checked;

    /**
     * @param provider     opens devices
     * @param availability why RDMA is not usable in this process, or null when it is (asked once)
     */
    public RdmaFabric(RdmaProvider provider, Supplier<String> availability) {
        this.provider = provider;
        this.availability = availability;
    }

    /** The process's fabric, over DiSNI and this machine's devices. */
    public static RdmaFabric shared() {
        return SHARED;
    }

    private static String detect() {
        RdmaAvailability a = RdmaAvailability.detect();
        return a.available() ? null : a.message();
    }

    /** Why RDMA cannot be used in this process (what is missing), or null when it can. Checked once. */
    public synchronized String unavailableReason() {
        if (!checked) {
            checked = true;
            unavailable = availability.get();
        }
        return unavailable;
    }

    /**
     * The local address whose device this process uses: {@code creel.rdma.address}, else the first
     * IPv4 address of the first RDMA device's network interface.
     *
     * @throws RdmaException {@link Kind#NOT_AVAILABLE} naming what is missing
     */
    public InetAddress localAddress(CreelConf conf) throws RdmaException {
        String configured = conf.get(RdmaTierKeys.ADDRESS);
        if (!configured.isEmpty()) {
            try {
                return InetAddress.getByName(configured);
            } catch (UnknownHostException e) {
                throw new RdmaException(Kind.NOT_AVAILABLE, null, RdmaTierKeys.ADDRESS.name() + "=" + configured
                        + " is not an address: " + e.getMessage(), e);
            }
        }
        for (RdmaAvailability.Device d : RdmaAvailability.detect().devices()) {
            for (String netdev : d.netdevs()) {
                try {
                    NetworkInterface nic = NetworkInterface.getByName(netdev);
                    if (nic == null) {
                        continue;
                    }
                    for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                        if (a instanceof Inet4Address) {
                            return a;
                        }
                    }
                } catch (SocketException e) {
                    // an interface that went away: try the next
                }
            }
        }
        throw new RdmaException(Kind.NOT_AVAILABLE, null, "no RDMA device has a network interface with an IPv4 "
                + "address; set " + RdmaTierKeys.ADDRESS.name() + " to the address of the RDMA interface");
    }

    /**
     * A share of the device at {@code address}, opening it if this process has none yet (with
     * {@code settings}; later users share it as it is). Close the lease when done.
     */
    public synchronized Lease acquire(InetAddress address, RdmaSettings settings) throws RdmaException {
        Shared s = devices.get(address);
        if (s == null || !s.device.isOpen()) {
            s = new Shared(provider.open(address, settings));
            devices.put(address, s);
        }
        s.users++;
        return new Lease(this, address, s);
    }

    private synchronized void release(InetAddress address, Shared s) {
        if (--s.users == 0) {
            devices.remove(address, s);
            s.device.close();
        }
    }

    private static final class Shared {
        final RdmaDevice device;
        int users;

        Shared(RdmaDevice device) {
            this.device = device;
        }
    }

    /** One user's share of a device; closing it closes the device when it was the last. */
    public static final class Lease implements AutoCloseable {
        private final RdmaFabric fabric;
        private final InetAddress address;
        private final Shared shared;
        private boolean closed;

        private Lease(RdmaFabric fabric, InetAddress address, Shared shared) {
            this.fabric = fabric;
            this.address = address;
            this.shared = shared;
        }

        public RdmaDevice device() {
            return shared.device;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (closed) {
                    return;
                }
                closed = true;
            }
            fabric.release(address, shared);
        }
    }
}
