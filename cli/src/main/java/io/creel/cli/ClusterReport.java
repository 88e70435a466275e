package io.creel.cli;

import io.creel.common.protocol.FsckReply;
import io.creel.common.protocol.ReplicationProgress;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.StorageServerInfo;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongFunction;

/**
 * The namenodes' STATUS answers added up into the cluster's view: every server once, with the
 * blocks all namenodes hold there. Each namenode knows only its own partition's use, so free space
 * is capacity minus everyone's used and retiring blocks, and a server's state is the worst any
 * namenode reports.
 */
final class ClusterReport {
    /** One namenode's answer. */
    record Namenode(String address, long nodes, List<String> classes) {
    }

    /** One server as the namenodes together see it; byte figures. */
    record Server(String address, String tier, String storageClass, String state, long capacity, long used,
                  long free, long pending) {
        boolean counts() {
            return !state.equals("dead") && !state.equals("decommissioned");
        }
    }

    /** One storage class over its servers that count. */
    record ClassTotal(String storageClass, int servers, long capacity, long used, long free, long pending) {
        /** No free block anywhere (and something to be full of). */
        boolean full() {
            return capacity > 0 && free == 0;
        }
    }

    private final List<Namenode> namenodes;
    private final List<Server> servers;
    private final List<ClassTotal> classes;
    private final ReplicationProgress replication;

    private ClusterReport(List<Namenode> namenodes, List<Server> servers, List<ClassTotal> classes,
                          ReplicationProgress replication) {
        this.namenodes = namenodes;
        this.servers = servers;
        this.classes = classes;
        this.replication = replication;
    }

    /** How restoring lost copies goes, in words (report and fsck print it). */
    static String describeRepair(ReplicationProgress p) {
        StringBuilder b = new StringBuilder();
        b.append(p.underReplicated()).append(" block").append(p.underReplicated() == 1 ? "" : "s")
                .append(" short of copies");
        if (p.waitingForWriter() > 0) {
            b.append(" (").append(p.waitingForWriter()).append(" of nodes still being written)");
        }
        b.append(", ").append(p.lost()).append(" without a live copy; ").append(p.repairedBlocks())
                .append(" repaired (").append(p.copiedBytes()).append(" bytes copied) since the namenodes started");
        if (p.failedRepairs() > 0) {
            b.append(", ").append(p.failedRepairs()).append(" repairs failed (last: ").append(p.lastProblem()).append(')');
        }
        return b.toString();
    }

    private static final class Merged {
        final StorageServerInfo info;
        final Set<String> states = new TreeSet<>();
        long used;
        long pending;

        Merged(StorageServerInfo info) {
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

    static ClusterReport of(List<String> addresses, List<StatusReply> replies) {
        Map<String, Merged> merged = new LinkedHashMap<>();
        ReplicationProgress replication = ReplicationProgress.NONE;
        List<String> classOrder = new ArrayList<>();
        List<Namenode> nns = new ArrayList<>();
        for (int i = 0; i < replies.size(); i++) {
            StatusReply r = replies.get(i);
            nns.add(new Namenode(i < addresses.size() ? addresses.get(i) : "?", r.nodeCount(), r.storageClasses()));
            r.storageClasses().stream().filter(cl -> !classOrder.contains(cl)).forEach(classOrder::add);
            replication = io.creel.client.admin.ClusterAdmin.sum(replication, r.replication());
            for (ServerStatus s : r.servers()) {
                Merged m = merged.computeIfAbsent(s.server().address() + "#" + s.server().localToken(),
                        k -> new Merged(s.server()));
                m.states.add(s.state());
                m.used += s.usedBlocks();
                m.pending += s.pendingBlocks();
            }
        }
        List<Server> servers = new ArrayList<>();
        Map<String, long[]> totals = new LinkedHashMap<>();
        classOrder.forEach(cl -> totals.put(cl, new long[5]));
        for (Merged m : merged.values()) {
            StorageServerInfo i = m.info;
            long bs = i.blockSize();
            long free = Math.max(0, i.blockCount() - m.used - m.pending) * bs;
            Server s = new Server(i.address(), i.tier(), i.storageClass(), m.state(), i.blockCount() * bs,
                    m.used * bs, free, m.pending * bs);
            servers.add(s);
            long[] t = totals.computeIfAbsent(i.storageClass(), k -> new long[5]);
            if (s.counts()) {
                t[0]++;
                t[1] += s.capacity();
                t[2] += s.used();
                t[3] += s.free();
                t[4] += s.pending();
            }
        }
        List<ClassTotal> classes = new ArrayList<>();
        totals.forEach((cl, t) -> classes.add(new ClassTotal(cl, (int) t[0], t[1], t[2], t[3], t[4])));
        return new ClusterReport(List.copyOf(nns), List.copyOf(servers), List.copyOf(classes), replication);
    }

    /** The storage classes in allocation order, over their servers that count. */
    List<ClassTotal> classes() {
        return classes;
    }

    List<String> deadServers() {
        return servers.stream().filter(s -> s.state().equals("dead")).map(Server::address).toList();
    }

    List<String> fullClasses() {
        return classes.stream().filter(ClassTotal::full).map(ClassTotal::storageClass).toList();
    }

    void print(PrintWriter out, LongFunction<String> size) {
        for (Namenode n : namenodes) {
            out.println("namenode " + n.address() + ": " + n.nodes() + " nodes, storage classes "
                    + String.join(", ", n.classes()));
        }
        if (!replication.equals(ReplicationProgress.NONE)) {
            out.println("replication: " + describeRepair(replication));
        }
        TextTable table = new TextTable(new boolean[] {false, false, false, false, true, true, true, true},
                "SERVER", "TIER", "CLASS", "STATE", "CAPACITY", "USED", "FREE", "PENDING");
        for (Server s : servers) {
            table.add(s.address(), s.tier(), s.storageClass(), s.state(), size.apply(s.capacity()),
                    size.apply(s.used()), size.apply(s.free()), size.apply(s.pending()));
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
        for (ClassTotal c : classes) {
            // No marker in the table: scripts read its columns; report names full classes on stderr.
            byClass.add(c.storageClass(), size.apply(c.capacity()),
                    size.apply(c.used()), size.apply(c.free()), size.apply(c.pending()));
        }
        byClass.print(out, "  ");
    }

    /** The --json form: the same figures in bytes, and the fsck's lost data when a server is dead. */
    Map<String, Object> toJson(FsckReply lost) {
        List<Object> nns = new ArrayList<>();
        namenodes.forEach(n -> nns.add(ReportCommand.object("address", n.address(), "nodes", n.nodes(),
                "classes", n.classes())));
        List<Object> ss = new ArrayList<>();
        servers.forEach(s -> ss.add(ReportCommand.object("address", s.address(), "tier", s.tier(),
                "class", s.storageClass(), "state", s.state(), "capacityBytes", s.capacity(), "usedBytes", s.used(),
                "freeBytes", s.free(), "pendingBytes", s.pending())));
        List<Object> cs = new ArrayList<>();
        classes.forEach(c -> cs.add(ReportCommand.object("class", c.storageClass(), "servers", c.servers(),
                "capacityBytes", c.capacity(), "usedBytes", c.used(), "freeBytes", c.free(),
                "pendingBytes", c.pending(), "full", c.full())));
        Map<String, Object> out = ReportCommand.object("namenodes", nns, "servers", ss, "classes", cs,
                "deadServers", deadServers(), "fullClasses", fullClasses(),
                "replication", ReportCommand.object("underReplicatedBlocks", replication.underReplicated(),
                        "waitingForWriter", replication.waitingForWriter(), "lostBlocks", replication.lost(),
                        "repairedBlocks", replication.repairedBlocks(), "copiedBytes", replication.copiedBytes(),
                        "failedRepairs", replication.failedRepairs(), "lastProblem", replication.lastProblem()));
        if (lost != null) {
            List<Object> damaged = new ArrayList<>();
            lost.damaged().forEach(d -> damaged.add(ReportCommand.object("path", d.path(), "lostBlocks",
                    d.lostBlocks(), "totalBlocks", d.totalBlocks(), "servers", d.servers())));
            out.put("lostData", ReportCommand.object("checked", lost.checked(), "damaged", damaged));
        }
        return out;
    }
}
