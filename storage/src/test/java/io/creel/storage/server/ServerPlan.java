package io.creel.storage.server;

import io.creel.common.protocol.Opcode;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the fake tier and fake exporters do when one test opens a server, and what they saw. The
 * runtime finds them through ServiceLoader, so a test cannot hand them settings directly: it files a
 * plan under the host id it opens its server with, and they look it up there.
 */
final class ServerPlan {
    private static final Map<String, ServerPlan> PLANS = new ConcurrentHashMap<>();
    private static final AtomicInteger NEXT_HOST = new AtomicInteger();

    /** How many times the tier calls {@code listen}: 0 never binds, 2 binds twice. */
    int listenCalls = 1;
    /** The port the tier asks for (0: any). */
    int port;
    /** Thrown by the tier after it bound its port, instead of returning a volume. */
    RuntimeException tierFailure;
    /** The volume's own attributes. */
    Map<String, String> volumeAttributes = Map.of("fake.volume.path", "/dev/shm/fake");
    /** Per exporter name: how it serves; an exporter not named here declines the volume. */
    final Map<String, ExportPlan> exports = new LinkedHashMap<>();

    final String hostId;
    private final List<String> events = new ArrayList<>();
    private volatile int boundPort = -1;
    /** The volume the tier opened, once it has. */
    volatile FakeVolume volume;
    /** What the volume says when asked whether it can serve ({@code null}: it can). */
    volatile String unavailable;

    private ServerPlan(String hostId) {
        this.hostId = hostId;
    }

    /** A new plan under a host id no other test uses; the exporter "alpha" serves BLOCK_READ. */
    static ServerPlan create() {
        ServerPlan p = new ServerPlan("fake-host-" + NEXT_HOST.incrementAndGet());
        p.exports.put("alpha", new ExportPlan(Map.of("alpha.port", "7001"), List.of(Opcode.BLOCK_READ), null));
        PLANS.put(p.hostId, p);
        return p;
    }

    /**
     * A plan for a server the runtime opens: the runtime names this machine's host id, so the plan is
     * filed under it (replacing an earlier one; tests that use it run one at a time).
     */
    static ServerPlan forHost(String hostId) {
        ServerPlan p = new ServerPlan(hostId);
        p.exports.put("alpha", new ExportPlan(Map.of("alpha.port", "7001"), List.of(Opcode.BLOCK_READ), null));
        PLANS.put(hostId, p);
        return p;
    }

    static ServerPlan of(String hostId) {
        ServerPlan p = PLANS.get(hostId);
        if (p == null) {
            throw new AssertionError("no plan for host " + hostId + ": open fake servers through ServerPlan");
        }
        return p;
    }

    /** How one exporter serves: attributes, routed opcodes, or a failure thrown after routing. */
    record ExportPlan(Map<String, String> attributes, List<Opcode> routes, RuntimeException failure) {
    }

    synchronized void event(String e) {
        events.add(e);
    }

    /** Everything the fakes saw, in order. */
    synchronized List<String> events() {
        return List.copyOf(events);
    }

    void bound(int port) {
        boundPort = port;
    }

    /** The port the tier bound, or -1. */
    int boundPort() {
        return boundPort;
    }

    /** Whether something accepts connections on the bound port right now: "open", "closed" or "never bound". */
    String portState() {
        if (boundPort < 0) {
            return "never bound";
        }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", boundPort), 2000);
            return "open";
        } catch (IOException refused) {
            return "closed";
        }
    }
}
