package io.creel.launcher;

import io.creel.cli.CommonOptions;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.namenode.NamenodeKeys;
import io.creel.namenode.NamenodeServer;
import io.creel.ops.DaemonHttp;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code creel namenode}: the metadata server daemon. */
@Command(name = "namenode", mixinStandardHelpOptions = true, description = "Run a namenode until interrupted.")
public final class NamenodeCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "N", description = "Port (default: the port of this namenode's entry in "
            + "creel.namenode.address).")
    Integer port;

    @Option(names = "--index", paramLabel = "I", description = "Which entry of creel.namenode.address this namenode is "
            + "(default: the only entry, else the only one naming this machine; a namenode that cannot tell refuses "
            + "to start).")
    Integer index;

    @Override
    public Integer call() {
        CreelConf conf = common.loadConf();
        List<HostPort> all = conf.get(ConfKeys.NAMENODE_ADDRESS);
        int self;
        if (index != null) {
            if (index < 0 || index >= all.size()) {
                throw new ParameterException(spec.commandLine(), "--index " + index + ": creel.namenode.address has "
                        + all.size() + " entries (0.." + (all.size() - 1) + ")");
            }
            self = index;
        } else {
            self = localEntry(all);
        }
        HostPort entry = all.get(self);
        int p = port != null ? port : entry.port();
        // Up before the namenode: probes see it live, and not ready while it restores its namespace.
        Optional<DaemonHttp> http = DaemonHttp.namenode(conf, self);
        // An rdma:// entry: this namenode serves over RDMA too (and always over TCP, on the same port number).
        NamenodeServer nn;
        try {
            nn = NamenodeServer.start(conf, conf.get(NamenodeKeys.BIND_HOST), p, entry.scheme());
        } catch (RuntimeException e) {
            http.ifPresent(DaemonHttp::close);
            throw e;
        }
        http.ifPresent(h -> h.namenodeServing(nn));
        http.ifPresent(h -> System.out.println("Creel namenode HTTP (status page, /metrics, /health) on port "
                + h.port()));
        System.out.println("Creel namenode listening on " + conf.get(NamenodeKeys.BIND_HOST) + ":" + nn.port()
                + (HostPort.SCHEME.equals(entry.scheme()) ? "" : " (and over " + entry.scheme() + "://)"));
        System.out.flush();
        return Daemons.runUntilInterrupted("namenode", () -> {
            http.ifPresent(DaemonHttp::close);
            nn.close();
        });
    }

    /**
     * Which entry of {@code entries} this namenode is: the only one, else the only one whose host is
     * an address of this machine. Anything else is ambiguous, and a namenode that guessed would serve
     * another's partition: refused, asking for {@code --index}.
     */
    static int localEntry(List<HostPort> entries) {
        return localEntry(entries, NamenodeCommand::isThisMachine);
    }

    static int localEntry(List<HostPort> entries, Predicate<String> isThisMachine) {
        if (entries.size() == 1) {
            return 0;
        }
        List<Integer> here = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            if (isThisMachine.test(entries.get(i).host())) {
                here.add(i);
            }
        }
        if (here.size() == 1) {
            return here.get(0);
        }
        throw new CreelException(ErrorCode.CONFIGURATION, "cannot tell which of the " + entries.size()
                + " entries of creel.namenode.address (" + entries.stream().map(HostPort::toString)
                .collect(Collectors.joining(", ")) + ") this namenode is: "
                + (here.isEmpty() ? "none names this machine" : "entries " + here + " name this machine")
                + "; start it with --index I (0.." + (entries.size() - 1) + ")");
    }

    /** Whether {@code host} resolves to an address of this machine (a loopback address counts). */
    private static boolean isThisMachine(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (a.isLoopbackAddress() || NetworkInterface.getByInetAddress(a) != null) {
                    return true;
                }
            }
        } catch (UnknownHostException | SocketException e) {
            // not resolvable here: not this machine
        }
        return false;
    }
}
