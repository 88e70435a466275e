package io.creel.storage.rdma.fake;

import io.creel.storage.rdma.ConnectionAdmission;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaListener;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A fake listener: records the peers connected to it and disconnects them when it closes. */
final class FakeListener implements RdmaListener {
    private final FakeRdmaDevice device;
    private final InetSocketAddress address;
    private final Set<Accepted> accepted = ConcurrentHashMap.newKeySet();
    private volatile boolean open = true;
    /** Decides connect requests; null admits every one. */
    private final ConnectionAdmission.Gate gate;

    FakeListener(FakeRdmaDevice device, InetSocketAddress address, ConnectionAdmission.Gate gate) {
        this.gate = gate;
        this.device = device;
        this.address = address;
    }

    FakeRdmaDevice device() {
        return device;
    }

    boolean isOpen() {
        return open;
    }

    /** What this listener answers a connect request from {@code from} carrying {@code privateData}. */
    ConnectionAdmission.Verdict admit(byte[] privateData, java.net.InetAddress from) {
        return gate == null ? new ConnectionAdmission.Verdict(true, null) : gate.admit(privateData, from.getHostAddress());
    }

    /** The accepting end of a new connection. */
    Accepted accept() {
        Accepted a = new Accepted();
        accepted.add(a);
        return a;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public int connectionCount() {
        return accepted.size();
    }

    @Override
    public void close() {
        if (!open) {
            return;
        }
        open = false;
        device.forget(this);
        for (Accepted a : accepted) {
            a.disconnectPeer("the listener at " + address + " was closed");
        }
    }

    /** The accepting side's view of one connection. */
    final class Accepted {
        private volatile boolean open = true;
        private volatile FakeConnection connector;

        FakeListener listener() {
            return FakeListener.this;
        }

        InetSocketAddress listenerAddress() {
            return address;
        }

        void attach(FakeConnection connection) {
            this.connector = connection;
        }

        boolean isOpen() {
            return open && device.isOpen();
        }

        /** The connecting side went away. */
        void close() {
            open = false;
            accepted.remove(this);
        }

        /** This side goes away: the connecting side sees a disconnect. */
        void disconnectPeer(String why) {
            close();
            FakeConnection c = connector;
            if (c != null) {
                c.fail(new RdmaException(RdmaException.Kind.UNREACHABLE, address, address + " disconnected: " + why));
            }
        }
    }
}
