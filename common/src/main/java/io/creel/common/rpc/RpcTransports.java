package io.creel.common.rpc;

import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.security.RpcSecurity;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;

/**
 * The {@link RpcTransport}s of this process by scheme: TCP under {@code creel}, and every other one
 * on the class path. Loaded once.
 */
public final class RpcTransports {
    private static volatile Map<String, RpcTransport> byScheme;

    private RpcTransports() {
    }

    /** The transport for {@code scheme}; fails CONFIGURATION naming the schemes there are. */
    public static RpcTransport forScheme(String scheme) {
        RpcTransport t = all().get(scheme);
        if (t == null) {
            throw new CreelException(ErrorCode.CONFIGURATION, "no RPC transport for " + scheme + ":// addresses on the "
                    + "class path (there are: " + String.join(", ", schemes()) + ")"
                    + ("rdma".equals(scheme) ? "; rdma:// comes with creel-storage-rdma" : ""));
        }
        return t;
    }

    /** The schemes there are, {@code creel} first. */
    public static List<String> schemes() {
        return new ArrayList<>(all().keySet());
    }

    private static Map<String, RpcTransport> all() {
        Map<String, RpcTransport> m = byScheme;
        if (m == null) {
            synchronized (RpcTransports.class) {
                if (byScheme == null) {
                    Map<String, RpcTransport> found = new LinkedHashMap<>();
                    found.put(HostPort.SCHEME, new Tcp());
                    // The SPI's own loader, not the thread's: inside Spark or Hadoop the two may differ.
                    for (RpcTransport t : ServiceLoader.load(RpcTransport.class, RpcTransport.class.getClassLoader())) {
                        found.putIfAbsent(t.scheme(), t);
                    }
                    // Keeps the order (creel first): Map.copyOf would not, and error messages list it.
                    m = Collections.unmodifiableMap(found);
                    byScheme = m;
                } else {
                    m = byScheme;
                }
            }
        }
        return m;
    }

    /** {@code creel://}: the frame protocol over TCP with Netty. */
    private static final class Tcp implements RpcTransport {
        @Override
        public String scheme() {
            return HostPort.SCHEME;
        }

        @Override
        public CompletableFuture<RpcConnection> connect(HostPort remote, Context c) {
            RpcSecurity security;
            try {
                security = RpcSecurity.of(c.conf());
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            // The connect's own future, not a derived one: whoever gives the connect up (completing it
            // first) makes the client close the connection when it arrives, instead of leaking it.
            @SuppressWarnings("unchecked")
            CompletableFuture<RpcConnection> f = (CompletableFuture<RpcConnection>) (CompletableFuture<?>) RpcClient.connect(
                    remote, c.loops(), c.maxFrame(), c.connectTimeout(), c.requestTimeout(), security);
            return f;
        }

        @Override
        public RpcListener listen(String name, String bindHost, int port, RequestHandler handler, Context c) {
            return RpcServer.start(name, bindHost, port, c.loops(), c.maxFrame(),
                    c.conf().get(ConfKeys.NET_FRAME_TIMEOUT), RpcSecurity.of(c.conf()), ServerLimits.of(c.conf()), handler);
        }
    }
}
