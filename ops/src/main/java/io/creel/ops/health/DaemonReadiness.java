package io.creel.ops.health;

import io.creel.common.net.HostPort;
import io.creel.namenode.NamenodeServer;
import io.creel.storage.runtime.StorageServerRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The readiness rules of Creel's daemons. */
public final class DaemonReadiness {
    private DaemonReadiness() {
    }

    /**
     * A namenode is ready once it has restored its namespace (when persistence is on) and bound its
     * RPC port: that is when {@link NamenodeServer#start} returns, so until {@code namenode} supplies
     * one, the daemon is still starting.
     *
     * @param name      how to call it in the reason ("namenode localhost:9060")
     * @param namenode  the started namenode, or null while it starts
     */
    public static Readiness namenode(String name, Supplier<NamenodeServer> namenode) {
        return () -> namenode.get() != null ? Readiness.READY
                : name + " is starting: restoring its namespace or binding its RPC port";
    }

    /**
     * A storage server is ready once every namenode of {@code namenodes} (creel.namenode.address, in
     * order) has accepted its registration; until then the reason names those that have not.
     */
    public static Readiness storageServer(StorageServerRuntime server, List<HostPort> namenodes) {
        List<HostPort> nns = List.copyOf(namenodes);
        return () -> {
            if (server.isDecommissioned()) {
                return "storage server " + server.info().address() + " was decommissioned";
            }
            List<String> missing = new ArrayList<>();
            for (int i = 0; i < nns.size(); i++) {
                if (server.serverId(i) == 0) {
                    missing.add(nns.get(i).toString());
                }
            }
            return missing.isEmpty() ? Readiness.READY : "storage server " + server.info().address()
                    + " is not registered with namenode " + String.join(", ", missing);
        };
    }
}
