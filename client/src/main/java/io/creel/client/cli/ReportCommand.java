package io.creel.client.cli;

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
            for (int i = 0; i < replies.size(); i++) {
                print(out, addresses.get(i).toString(), replies.get(i));
            }
            out.flush();
        }
        return 0;
    }

    private static void print(PrintWriter out, String address, StatusReply r) {
        out.println("namenode " + address + ": " + r.nodeCount() + " nodes, storage classes "
                + String.join(", ", r.storageClasses()));
        TextTable servers = new TextTable(new boolean[] {false, false, false, false, true, true, true, true},
                "SERVER", "TIER", "CLASS", "STATE", "CAPACITY", "USED", "FREE", "PENDING");
        Map<String, long[]> totals = new LinkedHashMap<>();
        r.storageClasses().forEach(cl -> totals.put(cl, new long[4]));
        for (ServerStatus s : r.servers()) {
            StorageServerInfo i = s.server();
            long bs = i.blockSize();
            long[] v = {i.blockCount() * bs, s.usedBlocks() * bs, s.freeBlocks() * bs, s.pendingBlocks() * bs};
            servers.add(i.address(), i.tier(), i.storageClass(), s.state(), size(v[0]), size(v[1]), size(v[2]),
                    size(v[3]));
            long[] t = totals.computeIfAbsent(i.storageClass(), k -> new long[4]);
            for (int k = 0; k < 4; k++) {
                t[k] += v[k];
            }
        }
        if (r.servers().isEmpty()) {
            out.println("  no storage servers registered");
        } else {
            servers.print(out, "  ");
        }
        out.println();
        TextTable classes = new TextTable(new boolean[] {false, true, true, true, true},
                "CLASS", "CAPACITY", "USED", "FREE", "PENDING");
        totals.forEach((cl, t) -> classes.add(cl, size(t[0]), size(t[1]), size(t[2]), size(t[3])));
        classes.print(out, "  ");
    }

    private static String size(long bytes) {
        return ConfValues.formatSize(bytes);
    }
}
