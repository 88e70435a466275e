package io.creel.dist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.multihost.CreelLab;
import io.creel.multihost.HostProcess;
import io.creel.multihost.LabExtension;
import io.creel.multihost.NetworkLab;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * sbin/start-cluster.sh and sbin/stop-cluster.sh for real: the distribution installed once (the
 * same path on every host, as over NFS), an sshd on each host of a network-namespace lab, and from
 * an admin host a cluster of two namenodes and three storage servers started over ssh, used,
 * checked and stopped. Each host's sshd gives its sessions a pid and log directory of their own,
 * as each machine's own /tmp would be.
 */
class ClusterScriptsIT {
    private static final String VERSION = System.getProperty("creel.dist.version");
    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(150);
    private static final String SSHD = "/usr/sbin/sshd";

    /** host1 administers and runs clients, host2-3 namenodes, host4-6 storage servers. */
    @RegisterExtension
    final LabExtension lab = new LabExtension(6);

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aClusterOfTwoNamenodesAndThreeStorageServersStartsServesAndStopsOverSsh() throws Exception {
        NetworkLab net = lab.net();
        if (!Files.isExecutable(Path.of(SSHD))) {
            // CI installs it (.ci/run); elsewhere this test says what it needs, as the lab does.
            String why = "sshd is not installed (Debian: apt-get install openssh-server)";
            if (required()) {
                throw new IllegalStateException(LabExtension.REQUIRED + " is set, but " + why);
            }
            org.junit.jupiter.api.Assumptions.abort("skipped: " + why);
        }
        Path scratch = Files.createDirectories(net.scratchDir());
        Path home = install(scratch);
        NetworkLab.Host admin = net.host(1);
        List<NetworkLab.Host> namenodes = List.of(net.host(2), net.host(3));
        List<NetworkLab.Host> workers = List.of(net.host(4), net.host(5), net.host(6));

        // The cluster's configuration, as an operator writes it on the admin host.
        StringBuilder site = new StringBuilder("\ncreel.namenode.address = ")
                .append(namenodes.stream().map(h -> "creel://" + h.ip() + ":" + CreelLab.NAMENODE_PORT)
                        .collect(Collectors.joining(",")))
                .append('\n');
        CreelLab.defaultSettings().forEach((k, v) -> site.append(k).append(" = ").append(v).append('\n'));
        // Small servers shared by two partitions: regions a fraction of a server, so both get some.
        site.append("creel.storage.region.size = 1m\n");
        Files.writeString(home.resolve("conf/creel-site.conf"), site, StandardOpenOption.APPEND);
        Files.writeString(home.resolve("conf/namenodes"), "# partition order\n"
                + namenodes.stream().map(h -> h.ip() + "\n").collect(Collectors.joining()));
        StringBuilder workerLines = new StringBuilder();
        for (NetworkLab.Host w : workers) {
            workerLines.append(w.ip()).append("  dram --size 8m --port ").append(CreelLab.STORAGE_PORT)
                    .append(" --host ").append(w.ip()).append(" --path ").append(scratch.resolve("dram-h" + w.index()))
                    .append('\n');
        }
        Files.writeString(home.resolve("conf/workers"), workerLines);

        String sshOpts = startSshds(net, scratch, List.of(net.host(2), net.host(3), net.host(4), net.host(5),
                net.host(6)));
        Map<String, String> env = Map.of("CREEL_SSH_OPTS", sshOpts);

        HostProcess start = net.start(admin, "start-cluster", List.of(home + "/sbin/start-cluster.sh"), env);
        assertEquals(0, start.waitForExit(SCRIPT_TIMEOUT), start.output());
        for (NetworkLab.Host nn : namenodes) {
            assertTrue(start.output().contains(nn.ip() + ": Creel namenode listening on"), start.output());
        }
        for (NetworkLab.Host w : workers) {
            assertTrue(start.output().contains(w.ip() + ": Creel dram storage server at " + w.ip() + ":"
                    + CreelLab.STORAGE_PORT), start.output());
        }

        awaitLive(net, admin, home, workers);
        byte[] data = new byte[1 << 20];
        new Random(6).nextBytes(data);
        Path in = Files.write(scratch.resolve("in.bin"), data);
        // Several top-level names, so both partitions hold some.
        for (String name : List.of("a", "b", "c", "d")) {
            HostProcess put = cli(net, admin, home, "put-" + name, "fs", "put", in.toString(), "/" + name);
            assertEquals(0, put.waitForExit(Duration.ofSeconds(60)), put.output());
            Path out = scratch.resolve("out-" + name + ".bin");
            HostProcess get = cli(net, admin, home, "get-" + name, "fs", "get", "/" + name, out.toString());
            assertEquals(0, get.waitForExit(Duration.ofSeconds(60)), get.output());
            assertArrayEquals(data, Files.readAllBytes(out), name);
        }

        HostProcess status = net.start(admin, "status", List.of(home + "/sbin/creel-cluster.sh", "status"), env);
        assertEquals(0, status.waitForExit(SCRIPT_TIMEOUT), status.output());
        HostProcess again = net.start(admin, "start-again", List.of(home + "/sbin/start-cluster.sh"), env);
        assertEquals(1, again.waitForExit(SCRIPT_TIMEOUT), "a second start is refused on every host: "
                + again.output());
        assertTrue(again.output().contains(namenodes.get(0).ip() + ": namenode is already running as process"),
                again.output());

        HostProcess stop = net.start(admin, "stop-cluster", List.of(home + "/sbin/stop-cluster.sh"), env);
        assertEquals(0, stop.waitForExit(SCRIPT_TIMEOUT), stop.output());
        HostProcess after = net.start(admin, "status-after", List.of(home + "/sbin/creel-cluster.sh", "status"), env);
        assertEquals(1, after.waitForExit(SCRIPT_TIMEOUT), after.output());
        assertTrue(after.output().contains(workers.get(2).ip() + ": datanode-dram is not running"), after.output());
        for (NetworkLab.Host h : net.hosts()) {
            assertEquals(List.of(), creelProcesses(h), "Creel processes left on " + h);
        }
        // Each daemon logged to its host's own log directory.
        for (NetworkLab.Host h : List.of(namenodes.get(1), workers.get(0))) {
            try (var logs = Files.list(scratch.resolve("h" + h.index()).resolve("logs"))) {
                assertTrue(logs.anyMatch(p -> p.getFileName().toString().matches("creel-.*-(namenode|datanode-dram)-.*\\.log")),
                        "log of " + h);
            }
        }
    }

    /** The tarball unpacked under the lab's scratch directory; every host sees it at this path. */
    private static Path install(Path scratch) throws Exception {
        Path tarball = Path.of(System.getProperty("creel.dist.tarball"));
        exec("tar", "xzf", tarball.toString(), "-C", scratch.toString());
        return scratch.resolve("creel-" + VERSION);
    }

    /**
     * Starts an sshd on each host that lets root in with a key made here, and returns the ssh
     * options that use it.
     */
    private static String startSshds(NetworkLab net, Path scratch, List<NetworkLab.Host> hosts) throws Exception {
        Path ssh = Files.createDirectories(scratch.resolve("ssh"));
        exec("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", ssh.resolve("host_key").toString());
        exec("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", ssh.resolve("id").toString());
        Files.copy(ssh.resolve("id.pub"), ssh.resolve("authorized_keys"));
        // sshd's privilege separation directory; the package makes it only when it starts the system's sshd.
        Files.createDirectories(Path.of("/run/sshd"));
        List<HostProcess> sshds = new ArrayList<>();
        for (NetworkLab.Host h : hosts) {
            Path hostDir = Files.createDirectories(scratch.resolve("h" + h.index()));
            Path config = Files.writeString(ssh.resolve("sshd_config-h" + h.index()), String.join("\n",
                    "ListenAddress " + h.ip() + ":22",
                    "HostKey " + ssh.resolve("host_key"),
                    "AuthorizedKeysFile " + ssh.resolve("authorized_keys"),
                    "PidFile none",
                    "StrictModes no",
                    "UsePAM no",
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PermitRootLogin prohibit-password",
                    "SetEnv CREEL_PID_DIR=" + hostDir.resolve("run") + " CREEL_LOG_DIR=" + hostDir.resolve("logs"),
                    ""));
            sshds.add(net.start(h, "sshd-h" + h.index(), List.of(SSHD, "-D", "-e", "-f", config.toString()),
                    Map.of()));
        }
        for (HostProcess p : sshds) {
            p.waitForLine("Server listening on", Duration.ofSeconds(20));
        }
        return "-i " + ssh.resolve("id") + " -o BatchMode=yes -o ConnectTimeout=5 -o StrictHostKeyChecking=no"
                + " -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR";
    }

    private static HostProcess cli(NetworkLab net, NetworkLab.Host host, Path home, String name, String... args) {
        List<String> cmd = new ArrayList<>(List.of(home + "/bin/creel"));
        cmd.addAll(List.of(args));
        return net.start(host, name, cmd, Map.of());
    }

    /** Every storage server registered with both namenodes and live (bin/creel report sums them). */
    private static void awaitLive(NetworkLab net, NetworkLab.Host admin, Path home, List<NetworkLab.Host> workers) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        String last = "";
        for (int attempt = 0; System.nanoTime() < deadline; attempt++) {
            HostProcess report = cli(net, admin, home, "report-" + attempt, "report");
            int exit = report.waitForExit(Duration.ofSeconds(30));
            last = report.output();
            String text = last;
            if (exit == 0 && workers.stream().allMatch(w -> Pattern.compile(Pattern.quote(w.ip() + ":"
                    + CreelLab.STORAGE_PORT) + "\\s+dram\\s+dram\\s+live").matcher(text).find())) {
                return;
            }
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
        throw new AssertionError("not every storage server is live within 60 s: " + last);
    }

    /** Creel JVMs still inside a host's namespace. */
    private static List<String> creelProcesses(NetworkLab.Host h) throws Exception {
        List<String> found = new ArrayList<>();
        for (String pid : exec("ip", "netns", "pids", h.namespace()).lines().map(String::strip)
                .filter(s -> !s.isEmpty()).toList()) {
            Path cmdline = Path.of("/proc", pid, "cmdline");
            if (Files.exists(cmdline)) {
                String c = new String(Files.readAllBytes(cmdline)).replace('\0', ' ');
                if (c.contains("io.creel.launcher.CreelMain")) {
                    found.add(pid + ": " + c);
                }
            }
        }
        return found;
    }

    /** Runs a command on this machine; returns its output, failing on a non-zero exit or after a minute. */
    private static String exec(String... command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 60 s");
        }
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + out);
        return out;
    }

    private static boolean required() {
        String v = System.getProperty(LabExtension.REQUIRED, System.getenv("CREEL_MULTIHOST_REQUIRED"));
        return v != null && (v.equals("true") || v.equals("1"));
    }
}
