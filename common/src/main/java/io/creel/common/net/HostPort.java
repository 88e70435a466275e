package io.creel.common.net;

import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * A host and port as users write them: {@code creel://host:port}, {@code host:port}, or
 * {@code [::1]:port}. Resolution is left to connect time so a name that moves is followed.
 */
public record HostPort(String host, int port) {
    /** The URI scheme of Creel addresses. */
    public static final String SCHEME = "creel";

    public HostPort {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("empty host");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port out of range 0..65535: " + port);
        }
    }

    /** Parses {@code creel://host:port} or {@code host:port}; any other scheme or a missing port is an error. */
    public static HostPort parse(String text) {
        String s = text.trim();
        String withScheme = s.contains("://") ? s : SCHEME + "://" + s;
        try {
            URI uri = new URI(withScheme);
            if (!SCHEME.equals(uri.getScheme() == null ? null : uri.getScheme().toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("address must use the creel:// scheme: " + text);
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
            return new HostPort(host, uri.getPort());
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not an address (expected creel://host:port): " + text);
        }
    }

    public InetSocketAddress toSocketAddress() {
        return new InetSocketAddress(host, port);
    }

    /** {@code creel://host:port}. */
    public String toUri() {
        return SCHEME + "://" + hostForUri() + ":" + port;
    }

    private String hostForUri() {
        return host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    }

    @Override
    public String toString() {
        return hostForUri() + ":" + port;
    }
}
