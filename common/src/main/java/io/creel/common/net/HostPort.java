package io.creel.common.net;

import io.creel.common.rpc.RpcTransports;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * A server address as users write it: {@code creel://host:port}, {@code host:port}, or
 * {@code [::1]:port}; another scheme names another RPC transport ({@code rdma://host:port}, see
 * {@link io.creel.common.rpc.RpcTransport}). Resolution is left to connect time so a name that moves
 * is followed.
 *
 * @param scheme the transport's scheme, {@link #SCHEME} for TCP
 */
public record HostPort(String scheme, String host, int port) {
    /** The URI scheme of Creel addresses over TCP, the default. */
    public static final String SCHEME = "creel";

    private static final Pattern SCHEME_SYNTAX = Pattern.compile("[a-z][a-z0-9+.-]*");

    public HostPort {
        if (scheme == null || !SCHEME_SYNTAX.matcher(scheme).matches()) {
            throw new IllegalArgumentException("not a scheme: " + scheme);
        }
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range 0..65535: " + port);
        }
    }

    /** A {@code creel://} (TCP) address. */
    public HostPort(String host, int port) {
        this(SCHEME, host, port);
    }

    /**
     * Parses {@code scheme://host:port} or {@code host:port} (then {@code creel://}). The scheme must
     * be one an RPC transport on the class path serves ({@link RpcTransports#schemes()}).
     */
    public static HostPort parse(String text) {
        String s = text.trim();
        String withScheme = s.contains("://") ? s : SCHEME + "://" + s;
        try {
            URI uri = new URI(withScheme);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!SCHEME.equals(scheme) && !RpcTransports.schemes().contains(scheme)) {
                throw new IllegalArgumentException("address must use the creel:// scheme or that of another RPC "
                        + "transport on the class path (there are: " + String.join(", ", RpcTransports.schemes())
                        + "): " + text);
            }
            if (uri.getHost() == null || uri.getPort() < 0) {
                throw new IllegalArgumentException("address needs host and port, e.g. creel://localhost:9060: " + text);
            }
            String path = uri.getPath();
            if (path != null && !path.isEmpty() && !path.equals("/")) {
                throw new IllegalArgumentException("a namenode address has no path: " + text);
            }
            String host = uri.getHost();
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            return new HostPort(scheme, host, uri.getPort());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not an address (expected creel://host:port): " + text);
        }
    }

    /** The same host and port under another scheme. */
    public HostPort withScheme(String other) {
        return new HostPort(other, host, port);
    }

    public InetSocketAddress toSocketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** {@code scheme://host:port}. */
    public String toUri() {
        return scheme + "://" + hostForUri() + ":" + port;
    }

    private String hostForUri() {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    /** {@code host:port} for TCP, {@code scheme://host:port} for any other transport. */
    @Override
    public String toString() {
        return SCHEME.equals(scheme) ? hostForUri() + ":" + port : toUri();
    }
}
