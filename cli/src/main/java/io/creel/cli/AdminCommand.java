package io.creel.cli;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.FsckReply;
import io.creel.common.protocol.ReplicationProgress;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.security.ClusterSecret;
import io.creel.common.security.SecurityKeys;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code creel admin ...}: cluster administration. */
@Command(name = "admin", description = "Administer the cluster: decommission storage servers, check for lost data.",
        mixinStandardHelpOptions = true, subcommands = {AdminCommand.Decommission.class, AdminCommand.Fsck.class,
                AdminCommand.HttpToken.class, CredentialCommand.class})
public final class AdminCommand implements Runnable {
    @Spec
    CommandSpec spec;

    public AdminCommand() {
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing subcommand: decommission, fsck, http-token or credential");
    }

    /** {@code creel admin decommission HOST:PORT}. */
    @Command(name = "decommission", description = "Drain a storage server: no new blocks; it leaves once its blocks "
            + "are free.")
    public static final class Decommission implements Callable<Integer> {
        @Mixin
        CommonOptions common;
        @Spec
        CommandSpec spec;
        @Parameters(paramLabel = "HOST:PORT", description = "The storage server, as bin/creel report names it.")
        String address;

        public Decommission() {
        }

        @Override
        public Integer call() {
            try (CreelClient c = common.connect()) {
                List<ServerStatus> views = Futures.await(c.decommission(address), c.requestTimeout(), "decommission");
                long used = views.stream().mapToLong(v -> v.usedBlocks() + v.pendingBlocks()).sum();
                PrintWriter out = spec.commandLine().getOut();
                String state = views.stream().allMatch(v -> v.state().equals("decommissioned")) ? "decommissioned"
                        : "draining";
                out.println(address + ": " + state + (used == 0 ? "; it holds no blocks and leaves now"
                        : "; " + used + " blocks still in use, it leaves once they are freed"));
                out.flush();
            }
            return 0;
        }
    }

    private static String seconds(long millis) {
        return String.format(java.util.Locale.ROOT, "%.1f", millis / 1000.0);
    }

    /** {@code creel admin fsck [PATH]}. */
    @Command(name = "fsck", description = "List Files and values with blocks on dead or departed storage servers, and "
            + "directories whose listing such a server took along (moved since, or still there); exit code 1 if "
            + "data is lost or a listing still fails.")
    public static final class Fsck implements Callable<Integer> {
        @Mixin
        CommonOptions common;
        @Spec
        CommandSpec spec;
        @Parameters(paramLabel = "PATH", defaultValue = "/", description = "Where to look (default: everywhere).")
        String path;

        public Fsck() {
        }

        @Override
        public Integer call() {
            CreelPath p = CreelPath.parse(path);
            try (CreelClient c = common.connect(p)) {
                FsckReply r = Futures.await(c.fsck(p.path()), c.requestTimeout(), "fsck " + p.path());
                PrintWriter out = spec.commandLine().getOut();
                for (FsckReply.Damaged d : r.damaged()) {
                    out.println(d.path() + ": " + d.lostBlocks() + " of " + d.totalBlocks() + " blocks lost on "
                            + String.join(", ", d.servers()));
                }
                for (FsckReply.Damaged d : r.underReplicated()) {
                    out.println(d.path() + ": " + d.lostBlocks() + " of " + d.totalBlocks() + " blocks short of copies"
                            + (d.servers().isEmpty() ? "" : "; copies lost or leaving on " + String.join(", ", d.servers())));
                }
                long stuck = 0;
                for (FsckReply.Records d : r.records()) {
                    String was = d.path() + ": its directory records (" + d.names() + " name" + (d.names() == 1 ? "" : "s")
                            + ") " + (d.stuck() ? "are" : "were") + " on " + d.server();
                    if (d.stuck()) {
                        stuck++;
                        out.println(was + "; its listing fails (for " + seconds(d.unlistedMillis()) + " s so far) until the "
                                + "namenode moves them");
                    } else {
                        out.println(was + "; rewritten on " + d.movedTo() + " from the namespace, no name lost; its "
                                + "listing failed for " + seconds(d.unlistedMillis()) + " s meanwhile");
                    }
                }
                out.println(r.damaged().isEmpty() ? "fsck " + p.path() + ": " + r.checked() + " nodes with data, none lost"
                        : "fsck " + p.path() + ": " + r.damaged().size() + " of " + r.checked()
                        + " nodes with data have lost blocks");
                ReplicationProgress rp = r.replication();
                if (!r.underReplicated().isEmpty() || rp.underReplicated() > 0 || rp.repairedBlocks() > 0) {
                    out.println("fsck " + p.path() + ": " + r.underReplicated().size() + " node"
                            + (r.underReplicated().size() == 1 ? "" : "s") + " short of copies; " + ClusterReport.describeRepair(rp));
                }
                if (!r.records().isEmpty()) {
                    out.println("fsck " + p.path() + ": " + r.records().size() + " container listing"
                            + (r.records().size() == 1 ? "" : "s") + " lost with dead servers, " + stuck
                            + " not restored yet");
                }
                out.flush();
                return r.damaged().isEmpty() && stuck == 0 ? 0 : 1;
            }
        }
    }

    /** {@code creel admin http-token}: the bearer token of the daemons' HTTP side under security. */
    @Command(name = "http-token", description = "Print the token /metrics, the status page and /status.json need "
            + "when creel.security.secret.file is set (for Prometheus' authorization.credentials_file).")
    public static final class HttpToken implements Callable<Integer> {
        @Mixin
        CommonOptions common;
        @Spec
        CommandSpec spec;

        public HttpToken() {
        }

        @Override
        public Integer call() {
            String file = common.loadConf().get(SecurityKeys.SECRET_FILE);
            if (file.isEmpty()) {
                throw new CreelException(ErrorCode.CONFIGURATION, "security is off (" + SecurityKeys.SECRET_FILE.name()
                        + " is not set): the HTTP side needs no token");
            }
            PrintWriter out = spec.commandLine().getOut();
            out.println(ClusterSecret.read(Path.of(file)).httpToken());
            out.flush();
            return 0;
        }
    }
}
