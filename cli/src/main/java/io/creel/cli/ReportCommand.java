package io.creel.cli;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.protocol.FsckReply;
import io.creel.common.protocol.StatusReply;
import io.creel.common.text.Json;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code creel report}: storage servers, tiers and capacity as the namenodes together see them, as
 * a table or JSON; the exit code says whether an operator is needed (a dead server, a full class).
 */
@Command(name = "report", description = {"Show storage servers, tiers, and capacity used and free.",
    "Exit code " + ReportCommand.UNHEALTHY + " when a storage server is dead or a storage class is full "
            + "(--fail-on chooses which count), 1 when the cluster cannot be asked."},
        mixinStandardHelpOptions = true)
public final class ReportCommand implements Callable<Integer> {
    /** Exit code of a report that found what --fail-on names. */
    public static final int UNHEALTHY = 3;

    /** What makes a report fail. */
    enum Problem { dead, full, none }

    @Mixin
    CommonOptions common;
    @Spec
    CommandSpec spec;
    @Option(names = "--json", description = "Print JSON (bytes as integers) instead of tables.")
    boolean json;
    @Option(names = "--bytes", description = "Sizes in the tables as plain byte counts (default: with units, "
            + "KiB, MiB, ...).")
    boolean bytes;
    @Option(names = "--fail-on", split = ",", paramLabel = "WHAT", defaultValue = "dead,full",
            description = "Exit " + UNHEALTHY + " on: dead (a storage server is dead), full (a storage class has no "
                    + "free block), none (always 0). Default: ${DEFAULT-VALUE}.")
    List<Problem> failOn;

    public ReportCommand() {
    }

    @Override
    public Integer call() {
        try (CreelClient c = common.connect()) {
            List<StatusReply> replies = Futures.await(c.status(), c.requestTimeout(), "status");
            List<String> addresses = c.conf().get(ConfKeys.NAMENODE_ADDRESS).stream().map(Object::toString).toList();
            ClusterReport report = ClusterReport.of(addresses, replies);
            FsckReply lost = report.deadServers().isEmpty() ? null
                    : Futures.await(c.fsck("/"), c.requestTimeout(), "fsck /");
            PrintWriter out = spec.commandLine().getOut();
            if (json) {
                out.println(Json.write(report.toJson(lost)));
            } else {
                report.print(out, bytes ? Long::toString : ConfValues::formatSize);
                if (lost != null) {
                    // Which nodes lost data: the same listing as `creel admin fsck /`, abridged.
                    out.println();
                    out.println("  lost data: " + lost.damaged().size() + " of " + lost.checked()
                            + " nodes with data have blocks on dead servers" + (lost.damaged().isEmpty() ? ""
                            : " (creel admin fsck lists them all)"));
                    lost.damaged().stream().limit(10).forEach(d -> out.println("    " + d.path() + ": "
                            + d.lostBlocks() + " of " + d.totalBlocks() + " blocks on "
                            + String.join(", ", d.servers())));
                }
            }
            out.flush();
            List<String> problems = new ArrayList<>();
            if (failOn.contains(Problem.dead) && !failOn.contains(Problem.none)) {
                report.deadServers().forEach(s -> problems.add("storage server " + s + " is dead"));
            }
            if (failOn.contains(Problem.full) && !failOn.contains(Problem.none)) {
                report.fullClasses().forEach(cl -> problems.add("storage class " + cl + " is full"));
            }
            if (problems.isEmpty()) {
                return 0;
            }
            PrintWriter err = spec.commandLine().getErr();
            err.println("creel: report: " + String.join("; ", problems));
            err.flush();
            return UNHEALTHY;
        }
    }

    /** A JSON object from alternating names and values, in that order. */
    static Map<String, Object> object(Object... keysAndValues) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            m.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return m;
    }
}
