package io.creel.ops.status;

import io.creel.common.BuildInfo;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.common.text.Json;
import io.creel.namenode.NamenodeServer;
import io.creel.ops.cluster.ClusterView;
import io.creel.ops.metrics.RecentErrors;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code /status.json}: what the status page shows, for scripts. The same figures from the same
 * STATUS answer; field names are part of the interface (ops/README.md lists them), so add fields,
 * never rename one. Bytes are integers, never human sizes.
 */
public final class StatusJson {
    private StatusJson() {
    }

    /**
     * @param partitions creel.namenode.address, in order
     * @param self       which of them this namenode is
     * @param source     what the page shows; null (or no namenode in it) while the namenode starts
     */
    public static String render(List<HostPort> partitions, int self, StatusPage.Source source) {
        Map<String, Object> out = new LinkedHashMap<>();
        BuildInfo build = BuildInfo.current();
        out.put("version", build.version());
        out.put("commit", build.commit());
        NamenodeServer nn = source == null ? null : source.namenode();
        // A local cluster learns its namenodes' addresses only once they serve.
        List<HostPort> known = source != null && !source.partitions().isEmpty() ? source.partitions() : partitions;
        int me = source != null && !source.partitions().isEmpty() ? source.self() : self;
        List<String> parts = known.stream().map(HostPort::toString).toList();
        out.put("namenode", parts.isEmpty() ? null : parts.get(me));
        out.put("partitions", parts);
        out.put("state", nn == null ? "starting" : "serving");
        if (nn == null) {
            return Json.write(out) + "\n";
        }
        ClusterView view = ClusterView.of(nn.status());
        out.put("nodes", view.nodes());
        long[] counts = nn.nodeCountsByType();
        Map<String, Object> byType = new LinkedHashMap<>();
        for (NodeType t : NodeType.values()) {
            byType.put(t.displayName(), counts[t.ordinal()]);
        }
        out.put("nodesByType", byType);
        out.put("serversByState", view.serversByState());
        var rp = nn.replication();
        Map<String, Object> replication = new LinkedHashMap<>();
        replication.put("underReplicatedBlocks", rp.underReplicated());
        replication.put("waitingForWriter", rp.waitingForWriter());
        replication.put("lostBlocks", rp.lost());
        replication.put("repairedBlocks", rp.repairedBlocks());
        replication.put("copiedBytes", rp.copiedBytes());
        replication.put("failedRepairs", rp.failedRepairs());
        replication.put("lastProblem", rp.lastProblem());
        out.put("replication", replication);
        List<Object> servers = new ArrayList<>();
        for (ClusterView.Server s : view.servers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("address", s.address());
            m.put("tier", s.tier());
            m.put("class", s.storageClass());
            m.put("state", s.state());
            m.put("capacityBytes", s.capacityBytes());
            m.put("usedBytes", s.usedBytes());
            m.put("freeBytes", s.freeBytes());
            m.put("pendingBytes", s.pendingBytes());
            m.put("heartbeatAgeMillis", s.heartbeatAgeMillis());
            servers.add(m);
        }
        out.put("servers", servers);
        List<String> spilling = view.spilling();
        List<Object> classes = new ArrayList<>();
        for (ClusterView.ClassTotal c : view.classTotals()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("class", c.storageClass());
            m.put("servers", c.servers());
            m.put("capacityBytes", c.capacityBytes());
            m.put("usedBytes", c.usedBytes());
            m.put("freeBytes", c.freeBytes());
            m.put("pendingBytes", c.pendingBytes());
            m.put("full", c.capacityBytes() > 0 && c.freeBlocks() == 0);
            m.put("spilling", spilling.contains(c.storageClass()));
            classes.add(m);
        }
        out.put("classes", classes);
        out.put("recentErrors", errors(source.errors()));
        return Json.write(out) + "\n";
    }

    private static Map<String, Object> errors(RecentErrors errors) {
        Map<String, Object> m = new LinkedHashMap<>();
        List<RecentErrors.Entry> list = errors == null ? List.of() : errors.newestFirst();
        m.put("total", errors == null ? 0 : errors.total());
        List<Object> entries = new ArrayList<>();
        for (RecentErrors.Entry e : list) {
            Map<String, Object> x = new LinkedHashMap<>();
            x.put("at", e.at().toString());
            x.put("service", e.service());
            x.put("op", e.op().name());
            x.put("code", e.code());
            x.put("message", e.message());
            entries.add(x);
        }
        m.put("entries", entries);
        return m;
    }
}
