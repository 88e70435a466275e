package io.creel.cli;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.conf.ConfValues;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.StorageServerInfo;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code creel report}: storage servers, tiers and capacity as each namenode sees them. */
@Command(name = "report", description = "Show storage servers, tiers, and capacity used and free.",
        mixinStandardHelpOptions = true)
public final class ReportCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;
    @Spec
    CommandSpec spec;

    public ReportCommand() {
    }

    @Override
    public Integer call() {
        try (CreelClient c = common.connect()) {
            List<StatusReply> replies = Futures.await(c.status(), c.requestTimeout(), "status");
            PrintWriter out = spec.commandLine().getOut();
            List<?> addresses = c.conf().get(io.creel.common.conf.ConfKeys.NAMENODE_ADDRESS);
            print(out, addresses, replies);
            boolean anyDown = replies.stream().flatMap(r -> r.servers().stream())
                    .anyMatch(s -> s.state().equals("dead"));
            if (anyDown) {
                // Which nodes lost data: the same listing as `creel admin fsck /`, abridged.
                io.creel.common.protocol.FsckReply lost = Futures.await(c.fsck("/"), c.requestTimeout(), "fsck /");
                out.println();
                out.println("  lost data: " + lost.damaged().size() + " of " + lost.checked()
                        + " nodes with data have blocks on dead servers" + (lost.damaged().isEmpty() ? ""
                        : " (creel admin fsck lists them all)"));
                lost.damaged().stream().limit(10).forEach(d -> out.println("    " + d.path() + ": " + d.lostBlocks()
                        + " of " + d.totalBlocks() + " blocks on " + String.join(", ", d.servers())));
            }
            out.flush();
        }
        return 0;
    }

    /** One server as the namenodes together see it. */
    private static final class Server {
        final StorageServerInfo info;
        final java.util.Set<String> states = new java.util.TreeSet<>();
        long used;
        long pending;

        Server(StorageServerInfo info) {
            this.info = info;
        }

        /** The state that matters most: lost beats leaving beats fine. */
        String state() {
            for (String s : List.of("dead", "decommissioned", "draining")) {
                if (states.contains(s)) {
                    return s;
                }
            }
            return states.isEmpty() ? "unknown" : states.iterator().next();
        }
    }

    /**
     * Every server once, with the blocks all namenodes hold there: each namenode knows only its own
     * use, so free space is capacity minus everyone's used and retiring blocks.
     */
    private static void print(PrintWriter out, List<?> addresses, List<StatusReply> replies) {
        Map<String, Server> servers = new LinkedHashMap<>();
        List<String> classes = new java.util.ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            StatusReply r = replies.get(i);
            out.println("namenode " + addresses.get(i) + ": " + r.nodeCount() + " nodes, storage classes "
                    + String.join(", ", r.storageClasses()));
            r.storageClasses().stream().filter(cl -> !classes.contains(cl)).forEach(classes::add);
            for (ServerStatus s : r.servers()) {
                Server m = servers.computeIfAbsent(s.server().address() + "#" + s.server().localToken(),
                        k -> new Server(s.server()));
                m.states.add(s.state());
                m.used += s.usedBlocks();
                m.pending += s.pendingBlocks();
            }
        }
        TextTable table = new TextTable(new boolean[] {false, false, false, false, true, true, true, true},
                "SERVER", "TIER", "CLASS", "STATE", "CAPACITY", "USED", "FREE", "PENDING");
        Map<String, long[]> totals = new LinkedHashMap<>();
        classes.forEach(cl -> totals.put(cl, new long[4]));
        for (Server m : servers.values()) {
            StorageServerInfo i = m.info;
            long bs = i.blockSize();
            long capacity = i.blockCount() * bs;
            long free = Math.max(0, i.blockCount() - m.used - m.pending) * bs;
            long[] v = {capacity, m.used * bs, free, m.pending * bs};
            table.add(i.address(), i.tier(), i.storageClass(), m.state(), size(v[0]), size(v[1]), size(v[2]),
                    size(v[3]));
            boolean counts = !m.state().equals("dead") && !m.state().equals("decommissioned");
            long[] t = totals.computeIfAbsent(i.storageClass(), k -> new long[4]);
            for (int k = 0; k < 4; k++) {
                t[k] += counts ? v[k] : 0;
            }
        }
        out.println();
        if (servers.isEmpty()) {
            out.println("  no storage servers registered");
        } else {
            table.print(out, "  ");
        }
        out.println();
        TextTable byClass = new TextTable(new boolean[] {false, true, true, true, true},
                "CLASS", "CAPACITY", "USED", "FREE", "PENDING");
        totals.forEach((cl, t) -> byClass.add(cl, size(t[0]), size(t[1]), size(t[2]), size(t[3])));
        byClass.print(out, "  ");
    }

    private static String size(long bytes) {
        return ConfValues.formatSize(bytes);
    }
}
