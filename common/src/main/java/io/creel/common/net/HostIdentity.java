package io.creel.common.net;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Names of this machine: the host name clients connect to, and a machine identity for placement. */
public final class HostIdentity {
    private HostIdentity() {
    }

    /** The machine's host name, or "localhost" if it has none that resolves. */
    public static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    /** A stable identity of this machine: {@code /etc/machine-id} when readable, else the host name. */
    public static String machineId() {
        try {
            Path p = Path.of("/etc/machine-id");
            if (Files.isReadable(p)) {
                String id = Files.readString(p).trim();
                if (!id.isEmpty()) {
                    return id;
                }
            }
        } catch (IOException e) {
            // fall through to the host name
        }
        return hostName();
    }
}
