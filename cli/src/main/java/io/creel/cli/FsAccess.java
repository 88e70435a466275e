package io.creel.cli;

import io.creel.client.CreelClient;
import io.creel.common.protocol.NodeAccess;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.SetAccessRequest;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code creel fs chmod} and {@code creel fs chown}: a node's mode, owner and group, which the
 * namenode enforces when the cluster has a secret.
 */
final class FsAccess {
    private FsAccess() {
    }

    /** {@code fs chmod MODE PATH...}. */
    @Command(name = "chmod", description = {"Set nodes' mode: octal, as chmod takes it (644, 0750).",
            "Only a node's owner or an administrator may; read and write are enforced, execute is kept."})
    public static final class Chmod extends FsCommand.Sub {
        @Parameters(index = "0", paramLabel = "MODE")
        String mode;
        @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH")
        List<String> paths;

        public Chmod() {
        }

        @Override
        public Integer call() {
            int m;
            try {
                m = NodeAccess.parseMode(mode);
            } catch (IllegalArgumentException e) {
                throw new ParameterException(spec.commandLine(), e.getMessage());
            }
            return set(this, paths, "", "", m, "chmod");
        }
    }

    /** {@code fs chown OWNER[:GROUP] PATH...} (or {@code :GROUP}). */
    @Command(name = "chown", description = {"Set nodes' owner and group: OWNER, OWNER:GROUP or :GROUP.",
            "Changing the owner is for administrators (the cluster secret); an owner may change the group to one "
                    + "of its own."})
    public static final class Chown extends FsCommand.Sub {
        @Parameters(index = "0", paramLabel = "OWNER[:GROUP]")
        String who;
        @Parameters(index = "1..*", arity = "1..*", paramLabel = "PATH")
        List<String> paths;

        public Chown() {
        }

        @Override
        public Integer call() {
            int colon = who.indexOf(':');
            String owner = colon < 0 ? who : who.substring(0, colon);
            String group = colon < 0 ? "" : who.substring(colon + 1);
            if (owner.isEmpty() && group.isEmpty()) {
                throw new ParameterException(spec.commandLine(), "chown needs an owner, OWNER:GROUP or :GROUP, not "
                        + who);
            }
            return set(this, paths, owner, group, SetAccessRequest.KEEP, "chown");
        }
    }

    private static int set(FsCommand.Sub cmd, List<String> paths, String owner, String group, int mode, String verb) {
        for (String path : paths) {
            CreelPath p = CreelPath.parse(path);
            try (CreelClient c = cmd.common.connect(p)) {
                NodeInfo i = FsCommand.Sub.await(c, c.setAccess(p.path(), owner, group, mode), verb + " " + p.path());
                cmd.out().println(p.path() + ": " + (i.access() == null ? "changed" : i.access()));
            }
        }
        cmd.out().flush();
        return 0;
    }

    /**
     * Whether {@code c} may ask for fsck (administrators only once identities exist): a client that
     * proves a named credential may not.
     */
    static boolean mayFsck(CreelClient c) {
        io.creel.common.security.Identity me = io.creel.common.security.RpcSecurity.of(c.conf()).clientIdentity();
        return me == null || me.superuser();
    }

    /** The access column of {@code fs ls -l}: {@code rw-r----- alice staff}, or "-" without permissions. */
    static String column(NodeInfo i) {
        NodeAccess a = i.access();
        return a == null ? "-" : NodeAccess.modeText(a.mode()) + " " + a.owner() + " " + a.group();
    }
}
