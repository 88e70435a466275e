package io.creel.cli;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.client.admin.ClusterAdmin;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.CredentialRecord;
import io.creel.common.security.ClusterSecret;
import io.creel.common.security.Credential;
import io.creel.common.security.Identity;
import io.creel.common.security.SecurityKeys;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code creel admin credential create|list|revoke}: the named credentials users and applications
 * prove instead of the cluster secret. Run by an administrator (a configuration with
 * {@code creel.security.secret.file}).
 */
@Command(name = "credential", description = "Issue, list and revoke named credentials (an identity a client proves "
        + "instead of the cluster secret).", subcommands = {CredentialCommand.Create.class,
        CredentialCommand.ListCredentials.class, CredentialCommand.Revoke.class})
public final class CredentialCommand implements Runnable {
    @Spec
    CommandSpec spec;

    public CredentialCommand() {
    }

    @Override
    public void run() {
        throw new ParameterException(spec.commandLine(), "missing subcommand: create, list or revoke");
    }

    /** Shared parts. */
    abstract static class Sub implements Callable<Integer> {
        @Mixin
        CommonOptions common;
        @Spec
        CommandSpec spec;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }
    }

    /** {@code admin credential create NAME [--groups G,...] [--out FILE]}. */
    @Command(name = "create", description = {"Issue a credential for identity NAME and write it to a new private "
            + "file (the only time its secret is shown).", "The user points creel.security.credential.file at it. "
            + "Issuing a name again replaces its earlier credential (that one stops working)."})
    public static final class Create extends Sub {
        @Parameters(paramLabel = "NAME", description = "The identity: letters, digits, . _ - @ (up to 64 bytes).")
        String name;
        @Option(names = "--groups", split = ",", paramLabel = "GROUP", description = "Groups the identity is in "
                + "(comma-separated), for nodes' group permissions.")
        List<String> groups = new ArrayList<>();
        @Option(names = "--out", paramLabel = "FILE", description = "Where to write it (default: NAME.credential here).")
        Path out;

        public Create() {
        }

        @Override
        public Integer call() {
            if (groups.size() > CredentialRecord.MAX_GROUPS) {
                throw new ParameterException(spec.commandLine(), "at most " + CredentialRecord.MAX_GROUPS + " groups");
            }
            groups.forEach(Identity::checkName);
            var conf = common.loadConf();
            Credential credential = Credential.issue(ClusterSecret.read(clusterSecret(conf.get(SecurityKeys.SECRET_FILE))),
                    name);
            Path file = out != null ? out : Path.of(name + ".credential");
            credential.write(file);
            CredentialRecord record = new CredentialRecord(name, credential.idText(), groups, System.currentTimeMillis());
            try (CreelClient c = CreelClient.connect(conf)) {
                Futures.await(c.admin().putCredential(record), c.requestTimeout().multipliedBy(2),
                        "issue credential " + name);
            } catch (RuntimeException e) {
                try {
                    Files.deleteIfExists(file); // a credential no namenode knows is of no use
                } catch (IOException gone) {
                    e.addSuppressed(gone);
                }
                throw e;
            }
            out().println("identity " + name + ": credential #" + credential.idText() + " written to " + file
                    + (groups.isEmpty() ? "" : " (groups " + String.join(",", groups) + ")") + "; its user sets "
                    + SecurityKeys.CREDENTIAL_FILE.name() + "=" + file.toAbsolutePath());
            out().flush();
            return 0;
        }

        private static Path clusterSecret(String file) {
            if (file.isEmpty()) {
                throw new CreelException(ErrorCode.CONFIGURATION, "issuing a credential needs the cluster secret: set "
                        + SecurityKeys.SECRET_FILE.name() + " (credentials are derived from it)");
            }
            return Path.of(file);
        }
    }

    /** {@code admin credential list}. */
    @Command(name = "list", description = "The current credentials: identity, id, groups, issued, and the namenodes "
            + "that do not know one (issue it again).")
    public static final class ListCredentials extends Sub {
        public ListCredentials() {
        }

        @Override
        public Integer call() {
            try (CreelClient c = common.connect()) {
                List<ClusterAdmin.Issued> all = Futures.await(c.admin().credentials(), c.requestTimeout().multipliedBy(2),
                        "list credentials");
                TextTable t = new TextTable(new boolean[] {false, false, false, false, false}, "IDENTITY", "ID",
                        "GROUPS", "ISSUED", "NAMENODES");
                for (ClusterAdmin.Issued i : all) {
                    CredentialRecord r = i.record();
                    t.add(r.name(), r.id(), r.groups().isEmpty() ? "-" : String.join(",", r.groups()),
                            Instant.ofEpochMilli(r.createdMillis()).toString(), i.everywhere() ? "all"
                                    : "only partitions " + i.partitions());
                }
                t.print(out(), "");
                out().flush();
            }
            return 0;
        }
    }

    /** {@code admin credential revoke NAME}. */
    @Command(name = "revoke", description = "Revoke identity NAME's credential: the namenodes refuse its connections' "
            + "next requests, open ones included.")
    public static final class Revoke extends Sub {
        @Parameters(paramLabel = "NAME")
        String name;

        public Revoke() {
        }

        @Override
        public Integer call() {
            try (CreelClient c = common.connect()) {
                CredentialRecord r = Futures.await(c.admin().revokeCredential(name), c.requestTimeout().multipliedBy(2),
                        "revoke credential " + name);
                out().println("identity " + name + ": credential #" + r.id() + " revoked");
                out().flush();
            }
            return 0;
        }
    }
}
