package io.creel.cli;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;

/**
 * A path as users type it on the command line: {@code /x/y}, or {@code creel://host:port/x/y}
 * naming the namenode to use as well.
 *
 * @param namenode the address in the path, or {@code null} if none was given
 * @param path     the absolute path within Creel
 */
public record CreelPath(HostPort namenode, String path) {
    public static CreelPath parse(String text) {
        String prefix = HostPort.SCHEME + "://";
        if (!text.startsWith(prefix)) {
            return new CreelPath(null, text);
        }
        int slash = text.indexOf('/', prefix.length());
        String authority = slash < 0 ? text.substring(prefix.length()) : text.substring(prefix.length(), slash);
        String path = slash < 0 ? "/" : text.substring(slash);
        try {
            return new CreelPath(HostPort.parse(prefix + authority), path);
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, text + ": " + e.getMessage());
        }
    }
}
