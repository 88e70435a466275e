package io.creel.storage.rdma.fake;

import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.MemoryAccess;
import io.creel.common.security.ClientAuthentication;
import io.creel.storage.rdma.ConnectionAdmission;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaListener;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.RegisteredMemory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/** A fake device on a {@link FakeRdmaNetwork}; see there for what it simulates. */
public final class FakeRdmaDevice implements RdmaDevice {
    private final FakeRdmaNetwork network;
    private final InetAddress address;
    private final RdmaSettings settings;
    private final Map<Integer, FakeRegisteredMemory> byRkey = new ConcurrentHashMap<>();
    private final Map<Integer, FakeListener> listeners = new ConcurrentHashMap<>();
    private final Set<FakeConnection> connections = ConcurrentHashMap.newKeySet();
    private final Map<CompletableFuture<ConnectionAdmission.Setup>, PendingConnect> connecting = new ConcurrentHashMap<>();
    private volatile boolean open = true;

    private record PendingConnect(InetSocketAddress peer, long deadlineNanos) {
    }

    FakeRdmaDevice(FakeRdmaNetwork network, InetAddress address, RdmaSettings settings) {
        this.network = network;
        this.address = address;
        this.settings = settings;
    }

    RdmaSettings settings() {
        return settings;
    }

    @Override
    public String name() {
        return "fake-rdma@" + address.getHostAddress();
    }

    @Override
    public InetAddress address() {
        return address;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public AtomicSupport atomics() {
        return network.atomics();
    }

    @Override
    public RegisteredMemory register(ByteBuffer buffer, MemoryAccess access) throws RdmaException {
        requireOpen();
        FakeRegisteredMemory.requireUsable(buffer);
        if (access.remoteAtomic() && !atomics().available()) {
            throw new RdmaException(Kind.INVALID_ARGUMENT, null, "device " + name()
                    + " has no atomic operations: memory cannot be registered for remote atomics");
        }
        FakeRegisteredMemory m = new FakeRegisteredMemory(this, buffer, access, network.nextAddress(buffer.capacity()),
                network.nextKey(), network.nextKey());
        byRkey.put(m.rkey(), m);
        return m;
    }

    FakeRegisteredMemory registration(int rkey) {
        FakeRegisteredMemory m = byRkey.get(rkey);
        return m != null && m.isOpen() && open ? m : null;
    }

    void deregistered(FakeRegisteredMemory m) {
        byRkey.remove(m.rkey(), m);
    }

    @Override
    public RdmaListener listen(int port) throws RdmaException {
        return listen(port, null);
    }

    @Override
    public RdmaListener listen(int port, ConnectionAdmission.Gate gate) throws RdmaException {
        requireOpen();
        int chosen = port == 0 ? network.nextPort() : port;
        FakeListener listener = new FakeListener(this, new InetSocketAddress(address, chosen), gate);
        if (listeners.putIfAbsent(chosen, listener) != null) {
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "cannot listen on " + address.getHostAddress() + ":"
                    + chosen + ": the port is in use");
        }
        return listener;
    }

    FakeListener listener(int port) {
        FakeListener l = listeners.get(port);
        return l != null && l.isOpen() && open ? l : null;
    }

    void forget(FakeListener listener) {
        listeners.remove(listener.localAddress().getPort(), listener);
    }

    void forget(FakeConnection connection) {
        connections.remove(connection);
    }

    @Override
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress peer) {
        return connect(peer, null);
    }

    @Override
    public CompletableFuture<RdmaConnection> connect(InetSocketAddress peer, ClientAuthentication auth) {
        return ConnectionAdmission.connect(peer, auth, data -> connectOnce(peer, data));
    }

    /** One connect carrying {@code privateData}, as the connection manager's. */
    private CompletableFuture<ConnectionAdmission.Setup> connectOnce(InetSocketAddress peer, byte[] privateData) {
        CompletableFuture<ConnectionAdmission.Setup> result = new CompletableFuture<>();
        if (!open) {
            result.completeExceptionally(new RdmaException(Kind.CLOSED, peer,
                    "connect to " + peer + " refused: device " + name() + " is closed"));
            return result;
        }
        connecting.put(result, new PendingConnect(peer, network.clock().getAsLong()
                + settings.connectTimeout().toNanos()));
        network.connectLater(this, peer, privateData, result);
        return result;
    }

    /** Completes a connect that its peer accepted, with the accept's private data (called by the network). */
    void established(FakeListener listener, CompletableFuture<ConnectionAdmission.Setup> result, byte[] acceptData) {
        if (connecting.remove(result) == null) {
            return; // timed out or device closed meanwhile
        }
        FakeListener.Accepted end = listener.accept();
        FakeConnection c = new FakeConnection(network.nextConnectionId(), network, this, end);
        end.attach(c);
        connections.add(c);
        if (!result.complete(new ConnectionAdmission.Setup(c, acceptData))) {
            c.close();
        }
    }

    /** Completes a connect that its peer rejected, with the reject's private data (called by the network). */
    void rejected(CompletableFuture<ConnectionAdmission.Setup> result, byte[] rejectData) {
        if (connecting.remove(result) != null) {
            result.complete(ConnectionAdmission.Setup.rejected(rejectData));
        }
    }

    /** Fails a connect (called by the network). */
    void refused(CompletableFuture<ConnectionAdmission.Setup> result, RdmaException why) {
        if (connecting.remove(result) != null) {
            result.completeExceptionally(why);
        }
    }

    /** Times out connects and operations whose deadline passed at {@code nowNanos}. */
    public void sweep(long nowNanos) {
        for (Map.Entry<CompletableFuture<ConnectionAdmission.Setup>, PendingConnect> e : connecting.entrySet()) {
            PendingConnect p = e.getValue();
            if (nowNanos - p.deadlineNanos() > 0 && connecting.remove(e.getKey()) != null) {
                e.getKey().completeExceptionally(new RdmaException(Kind.TIMEOUT, p.peer(), "connect to " + p.peer()
                        + " did not complete within " + settings.connectTimeout().toMillis() + " ms"));
            }
        }
        for (FakeConnection c : List.copyOf(connections)) {
            c.expire(nowNanos);
        }
    }

    /** Connections this device opened that are still registered with it. */
    public int connectionCount() {
        return connections.size();
    }

    private void requireOpen() throws RdmaException {
        if (!open) {
            throw new RdmaException(Kind.CLOSED, null, "device " + name() + " is closed");
        }
    }

    /** The device dies without closing anything in order: peers see disconnects. */
    void crash() {
        open = false;
        network.forget(this);
        for (FakeListener l : new ArrayList<>(listeners.values())) {
            l.close();
        }
        for (FakeConnection c : List.copyOf(connections)) {
            c.fail(new RdmaException(Kind.NOT_AVAILABLE, c.peer(), "device " + name() + " failed"));
        }
        failConnects("device " + name() + " failed");
    }

    @Override
    public void close() {
        if (!open) {
            return;
        }
        open = false;
        network.forget(this);
        for (FakeConnection c : List.copyOf(connections)) {
            c.close();
        }
        for (FakeListener l : new ArrayList<>(listeners.values())) {
            l.close();
        }
        failConnects("device " + name() + " was closed");
        for (FakeRegisteredMemory m : List.copyOf(byRkey.values())) {
            m.close();
        }
    }

    private void failConnects(String why) {
        for (Map.Entry<CompletableFuture<ConnectionAdmission.Setup>, PendingConnect> e : connecting.entrySet()) {
            if (connecting.remove(e.getKey()) != null) {
                e.getKey().completeExceptionally(new RdmaException(Kind.CLOSED, e.getValue().peer(),
                        "connect to " + e.getValue().peer() + " failed: " + why));
            }
        }
    }
}
