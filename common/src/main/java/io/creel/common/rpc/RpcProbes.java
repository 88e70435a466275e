package io.creel.common.rpc;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The process's {@link RpcProbe}s, one per server name. Process-wide on purpose: a daemon's metrics
 * are the process's, and the RPC servers are started deep inside the namenode and storage server,
 * which should not carry a metrics object through every constructor. Until something is
 * {@link #install installed}, every server gets {@link RpcProbe#NONE}.
 */
public final class RpcProbes {
    private static final Map<String, RpcProbe> PROBES = new ConcurrentHashMap<>();
    private static volatile Function<String, RpcProbe> factory;

    private RpcProbes() {
    }

    /**
     * Makes {@code probeFor} the source of every server's probe from now on: connections accepted
     * afterwards report to it. Install it before the daemon starts.
     */
    public static synchronized void install(Function<String, RpcProbe> probeFor) {
        factory = probeFor;
        PROBES.clear();
    }

    /** Back to reporting nowhere, if {@code probeFor} is still the one installed (a daemon stopping). */
    public static synchronized void uninstall(Function<String, RpcProbe> probeFor) {
        if (factory == probeFor) {
            factory = null;
            PROBES.clear();
        }
    }

    /** The probe of servers named {@code serverName}; {@link RpcProbe#NONE} when nothing measures. */
    public static RpcProbe forServer(String serverName) {
        Function<String, RpcProbe> f = factory;
        if (f == null) {
            return RpcProbe.NONE;
        }
        RpcProbe p = PROBES.get(serverName);
        return p != null ? p : PROBES.computeIfAbsent(serverName, f);
    }
}
