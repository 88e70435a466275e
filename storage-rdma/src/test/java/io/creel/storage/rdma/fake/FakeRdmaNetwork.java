package io.creel.storage.rdma.fake;

import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.ConnectionAdmission;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaProvider;
import io.creel.storage.rdma.RdmaSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * An in-memory RDMA network for unit tests of everything above {@link RdmaDevice}: devices by IP
 * address, registered "remote memory", listeners, and one-sided reads and writes that copy bytes
 * between registered buffers on a completion thread, with the checks a real device makes. The wire
 * is one thread that runs transfers in posting order, so every operation is "fenced".
 *
 * <p>What tests can make happen, deterministically:
 * <ul>
 *   <li>{@link #pauseCompletions()} / {@link #resumeCompletions()}: operations stay "on the wire"
 *       (many in flight, queue depth reached) until resumed;</li>
 *   <li>{@link #crash(InetAddress)}: a machine dies; its peers' connections break, naming it;</li>
 *   <li>{@link #silence(InetAddress)}: a machine stops answering without disconnecting; connects and
 *       operations to it never complete until {@link #sweep()} passes their deadlines;</li>
 *   <li>the clock is injectable, so deadlines pass when the test says so, never by sleeping;</li>
 *   <li>{@link #atomics(AtomicSupport)}: devices with or without atomic operations.</li>
 * </ul>
 * Nothing is timed: {@link #sweep()} is the only place deadlines are checked.
 */
public final class FakeRdmaNetwork implements RdmaProvider, AutoCloseable {
    private final LongSupplier clock;
    private final Map<InetAddress, FakeRdmaDevice> devices = new ConcurrentHashMap<>();
    private final Set<InetAddress> silent = ConcurrentHashMap.newKeySet();
    private final ExecutorService wire = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "fake-rdma-wire");
        t.setDaemon(true);
        return t;
    });
    private final ArrayDeque<Runnable> held = new ArrayDeque<>();
    private boolean paused;
    private final AtomicLong nextAddress = new AtomicLong(0x7f00_0000_0000L);
    private final AtomicInteger nextKey = new AtomicInteger(0x1000);
    private final AtomicInteger nextPort = new AtomicInteger(40000);
    private final AtomicInteger nextConnectionId = new AtomicInteger(1);
    private volatile AtomicSupport atomics = AtomicSupport.GLOBAL;

    /** A network on the system nanosecond clock. */
    public FakeRdmaNetwork() {
        this(System::nanoTime);
    }

    /** A network whose deadlines follow {@code clock} (nanoseconds). */
    public FakeRdmaNetwork(LongSupplier clock) {
        this.clock = clock;
    }

    @Override
    public RdmaDevice open(InetAddress localAddress, RdmaSettings settings) throws RdmaException {
        FakeRdmaDevice device = new FakeRdmaDevice(this, localAddress, settings);
        if (devices.putIfAbsent(localAddress, device) != null) {
            throw new RdmaException(Kind.NOT_AVAILABLE, null, "a fake RDMA device is already open on "
                    + localAddress.getHostAddress());
        }
        return device;
    }

    /**
     * How atomic the devices' compare-and-swap is from now on (default {@link AtomicSupport#GLOBAL}:
     * the fake swaps with the CPU's own compare-and-set, so it is atomic against local code too).
     */
    public void atomics(AtomicSupport support) {
        this.atomics = support;
    }

    AtomicSupport atomics() {
        return atomics;
    }

    /** Holds every transfer until {@link #resumeCompletions()}. */
    public void pauseCompletions() {
        synchronized (held) {
            paused = true;
        }
    }

    /** Delivers the held transfers in order and stops holding. */
    public void resumeCompletions() {
        List<Runnable> release;
        synchronized (held) {
            paused = false;
            release = List.copyOf(held);
            held.clear();
        }
        release.forEach(wire::execute);
    }

    /** Transfers held by {@link #pauseCompletions()}. */
    public int heldTransfers() {
        synchronized (held) {
            return held.size();
        }
    }

    /** The machine at {@code address} dies: its device fails, peers connected to it see a disconnect. */
    public void crash(InetAddress address) {
        FakeRdmaDevice d = devices.get(address);
        if (d != null) {
            d.crash();
        }
    }

    /** The machine at {@code address} stops answering (no disconnect): its transfers and connects hang. */
    public void silence(InetAddress address) {
        silent.add(address);
    }

    /** Passes every device's deadlines at the clock's current time. */
    public void sweep() {
        long now = clock.getAsLong();
        for (FakeRdmaDevice d : List.copyOf(devices.values())) {
            d.sweep(now);
        }
    }

    /** Waits until every transfer handed to the wire so far has run (for assertions after the fact). */
    public void drain() throws InterruptedException {
        CompletableFuture<Void> marker = new CompletableFuture<>();
        wire.execute(() -> marker.complete(null));
        try {
            marker.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the fake RDMA wire did not drain within 30 s", e);
        }
    }

    @Override
    public void close() {
        for (FakeRdmaDevice d : List.copyOf(devices.values())) {
            d.close();
        }
        wire.shutdownNow();
    }

    LongSupplier clock() {
        return clock;
    }

    void forget(FakeRdmaDevice device) {
        devices.remove(device.address(), device);
    }

    /** Runs a transfer towards {@code target} on the wire, unless paused or the target is silent. */
    void deliver(FakeRdmaDevice target, Runnable transfer) {
        if (silent.contains(target.address())) {
            return; // lost: only the deadline ends the operation
        }
        synchronized (held) {
            if (paused) {
                held.addLast(transfer);
                return;
            }
        }
        wire.execute(transfer);
    }

    void connectLater(FakeRdmaDevice from, InetSocketAddress peer, byte[] privateData,
                      CompletableFuture<ConnectionAdmission.Setup> result) {
        if (silent.contains(peer.getAddress())) {
            return;
        }
        wire.execute(() -> {
            FakeRdmaDevice target = devices.get(peer.getAddress());
            FakeListener listener = target == null ? null : target.listener(peer.getPort());
            if (target == null) {
                from.refused(result, new RdmaException(Kind.UNREACHABLE, peer,
                        "connect to " + peer + " failed: no RDMA device answers at " + peer.getAddress().getHostAddress()));
            } else if (listener == null) {
                from.refused(result, new RdmaException(Kind.UNREACHABLE, peer,
                        "connect to " + peer + " was rejected: nothing listens on port " + peer.getPort()));
            } else {
                ConnectionAdmission.Verdict v = listener.admit(privateData, from.address());
                if (v.accept()) {
                    from.established(listener, result, v.privateData());
                } else {
                    from.rejected(result, v.privateData());
                }
            }
        });
    }

    long nextAddress(int length) {
        long span = ((length + 4095L) & ~4095L) + 4096L; // a guard page between registrations
        return nextAddress.getAndAdd(span);
    }

    int nextKey() {
        return nextKey.getAndAdd(0x101);
    }

    int nextPort() {
        return nextPort.getAndIncrement();
    }

    int nextConnectionId() {
        return nextConnectionId.getAndIncrement();
    }
}
