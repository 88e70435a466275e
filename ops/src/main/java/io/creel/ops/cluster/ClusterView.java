package io.creel.ops.cluster;

import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.StorageServerInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One namenode's STATUS answer in the figures operators ask for: every server with its capacity,
 * used, free and retiring bytes, and the same per storage class over the servers that count (not
 * dead, not decommissioned), in allocation order. The metrics and the status page both read it, and
 * count as {@code creel report} does.
 */
public record ClusterView(long nodes, List<String> classes, List<Server> servers, List<ClassTotal> classTotals) {
    /** States a server can be in, as the namenode reports them. */
    public static final List<String> STATES = List.of("live", "draining", "dead", "decommissioned");

    /** One storage server. Byte figures are blocks times the server's block size. */
    public record Server(String address, String tier, String storageClass, String state, long capacityBytes,
                         long usedBytes, long freeBytes, long pendingBytes, long usedBlocks, long freeBlocks,
                         long pendingBlocks, long heartbeatAgeMillis) {
        /** Whether its space counts toward its class (it may hold or take blocks). */
        public boolean counts() {
            return !state.equals("dead") && !state.equals("decommissioned");
        }
    }

    /** One storage class over the servers that count. */
    public record ClassTotal(String storageClass, int servers, long capacityBytes, long usedBytes, long freeBytes,
                             long pendingBytes, long usedBlocks, long freeBlocks, long pendingBlocks) {
    }

    public static ClusterView of(StatusReply status) {
        List<Server> servers = new ArrayList<>();
        Map<String, long[]> totals = new LinkedHashMap<>();
        status.storageClasses().forEach(c -> totals.put(c, new long[8]));
        for (ServerStatus s : status.servers()) {
            StorageServerInfo i = s.server();
            long bs = i.blockSize();
            // Free as report computes it: blocks neither used nor waiting out the reuse delay.
            long freeBlocks = Math.max(0, i.blockCount() - s.usedBlocks() - s.pendingBlocks());
            Server v = new Server(i.address(), i.tier(), i.storageClass(), s.state(), i.blockCount() * bs,
                    s.usedBlocks() * bs, freeBlocks * bs, s.pendingBlocks() * bs, s.usedBlocks(), freeBlocks,
                    s.pendingBlocks(), s.heartbeatAgeMillis());
            servers.add(v);
            if (v.counts()) {
                long[] t = totals.computeIfAbsent(i.storageClass(), k -> new long[8]);
                t[0]++;
                t[1] += v.capacityBytes();
                t[2] += v.usedBytes();
                t[3] += v.freeBytes();
                t[4] += v.pendingBytes();
                t[5] += v.usedBlocks();
                t[6] += v.freeBlocks();
                t[7] += v.pendingBlocks();
            }
        }
        List<ClassTotal> classTotals = new ArrayList<>();
        totals.forEach((c, t) -> classTotals.add(new ClassTotal(c, (int) t[0], t[1], t[2], t[3], t[4], t[5], t[6],
                t[7])));
        return new ClusterView(status.nodeCount(), List.copyOf(status.storageClasses()), List.copyOf(servers),
                List.copyOf(classTotals));
    }

    /** Servers per state, every state of {@link #STATES} present. */
    public Map<String, Integer> serversByState() {
        Map<String, Integer> m = new LinkedHashMap<>();
        STATES.forEach(s -> m.put(s, 0));
        servers.forEach(s -> m.merge(s.state(), 1, Integer::sum));
        return m;
    }

    /**
     * Classes that spill: full (no free block on any server that counts) while a later class in
     * allocation order holds blocks, so new data lands lower than asked.
     */
    public List<String> spilling() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < classTotals.size() - 1; i++) {
            ClassTotal c = classTotals.get(i);
            boolean lowerUsed = classTotals.subList(i + 1, classTotals.size()).stream().anyMatch(l -> l.usedBlocks() > 0);
            if (c.freeBlocks() == 0 && lowerUsed) {
                out.add(c.storageClass());
            }
        }
        return out;
    }
}
