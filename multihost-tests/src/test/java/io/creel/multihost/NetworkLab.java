package io.creel.multihost;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A private network of Linux network namespaces on this machine: a "switch" namespace holding a
 * bridge, and {@code N} host namespaces, each joined to the bridge by a veth pair and given the
 * address {@code 10.213.X.i/24} (i = 1..N). Nothing is added to the machine's own namespace, so all
 * traffic between the hosts stays inside namespaces this lab created.
 *
 * <p>Names: the switch is {@code crl<pid>n<seq>s}, host i is {@code crl<pid>n<seq>h<i>}, where pid is
 * this JVM's and seq counts labs in it. Inside the switch the bridge is {@code br0} and host i's
 * port is {@code p<i>}; inside a host the interface is {@code eth0}.
 *
 * <p>{@link #close()} kills every process started in the lab, deletes every namespace (which
 * removes the bridge and the veth pairs) and the {@link #scratchDir()}, also after failures and from a JVM shutdown hook. A new
 * lab first deletes labs left behind by JVMs that no longer run (see {@link #removeLeftovers()}).
 */
public final class NetworkLab implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NetworkLab.class);
    static final String PREFIX = "crl";
    private static final Pattern NAME = Pattern.compile(PREFIX + "(\\d+)n(\\d+)(s|h\\d+)");
    private static final AtomicInteger SEQ = new AtomicInteger();

    private final String id;
    private final String subnet;
    private final Path workDir;
    private final String switchNs;
    private final List<Host> hosts = new ArrayList<>();
    private final List<String> namespaces = new ArrayList<>();
    private final List<HostProcess> processes = Collections.synchronizedList(new ArrayList<>());
    private final Thread shutdownHook;
    private boolean closed;

    /** One host namespace: its index (1-based), namespace name, address, and port on the switch. */
    public record Host(int index, String namespace, String ip, String switchPort) {
        @Override
        public String toString() {
            return "host" + index + "(" + ip + ")";
        }
    }

    private NetworkLab(int hostCount, Path workDir) {
        this.id = PREFIX + ProcessHandle.current().pid() + "n" + SEQ.incrementAndGet();
        this.subnet = pickSubnet();
        this.workDir = workDir;
        this.switchNs = id + "s";
        this.shutdownHook = new Thread(this::cleanUp, "netlab-cleanup-" + id);
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        try {
            build(hostCount);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * Why labs cannot be built here (not root, no {@code ip}, no namespace support), or null if
     * they can. Tests skip with this reason.
     */
    public static String unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
            return "multi-host tests need Linux network namespaces (this is " + System.getProperty("os.name") + ")";
        }
        Cmd.Result uid = Cmd.run("id", "-u");
        if (!uid.ok() || !uid.output().strip().equals("0")) {
            return "multi-host tests need root (to create network namespaces and veth pairs); running as uid "
                    + uid.output().strip();
        }
        String probe = PREFIX + ProcessHandle.current().pid() + "n0s";
        Cmd.Result add = Cmd.run("ip", "netns", "add", probe);
        if (!add.ok()) {
            return "`ip netns add` failed (need iproute2 and a kernel with network namespaces): "
                    + add.output().strip();
        }
        try {
            Cmd.Result veth = Cmd.run("ip", "-n", probe, "link", "add", "name", "probe0", "type", "veth", "peer", "name", "probe1");
            if (!veth.ok()) {
                return "cannot create a veth pair in a network namespace: " + veth.output().strip();
            }
            Cmd.Result bridge = Cmd.run("ip", "-n", probe, "link", "add", "br0", "type", "bridge");
            if (!bridge.ok()) {
                return "cannot create a Linux bridge in a network namespace: " + bridge.output().strip();
            }
        } finally {
            Cmd.run("ip", "netns", "del", probe);
        }
        return null;
    }

    /** Builds a lab of {@code hostCount} hosts; per-host files go under {@code workDir}. */
    public static NetworkLab create(int hostCount, Path workDir) {
        if (hostCount < 1 || hostCount > 250) {
            throw new IllegalArgumentException("1..250 hosts, not " + hostCount);
        }
        removeLeftovers();
        return new NetworkLab(hostCount, workDir);
    }

    private void build(int hostCount) {
        try {
            Files.createDirectories(workDir);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create " + workDir + ": " + e, e);
        }
        addNamespace(switchNs);
        Cmd.check("ip", "-n", switchNs, "link", "set", "lo", "up");
        Cmd.check("ip", "-n", switchNs, "link", "add", "br0", "type", "bridge");
        Cmd.check("ip", "-n", switchNs, "link", "set", "br0", "up");
        for (int i = 1; i <= hostCount; i++) {
            String ns = id + "h" + i;
            String port = "p" + i;
            String ip = subnet + "." + i;
            addNamespace(ns);
            Cmd.check("ip", "-n", ns, "link", "set", "lo", "up");
            // Both ends are created inside lab namespaces; the machine's own namespace never sees them.
            Cmd.check("ip", "-n", switchNs, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", ns);
            Cmd.check("ip", "-n", switchNs, "link", "set", port, "master", "br0");
            Cmd.check("ip", "-n", switchNs, "link", "set", port, "up");
            Cmd.check("ip", "-n", ns, "addr", "add", ip + "/24", "dev", "eth0");
            Cmd.check("ip", "-n", ns, "link", "set", "eth0", "up");
            hosts.add(new Host(i, ns, ip, port));
        }
        LOG.info("network lab {}: switch {}, hosts {}", id, switchNs, hosts);
    }

    private void addNamespace(String ns) {
        Cmd.check("ip", "netns", "add", ns);
        namespaces.add(ns);
    }

    /** A /24 under 10.213/16 that no interface of this machine's namespace uses. */
    private static String pickSubnet() {
        String addrs = Cmd.run("ip", "-o", "addr").output();
        for (int attempt = 0; attempt < 100; attempt++) {
            String s = "10.213." + ThreadLocalRandom.current().nextInt(1, 251);
            if (!addrs.contains(" " + s + ".")) {
                return s;
            }
        }
        throw new IllegalStateException("no free 10.213.X.0/24 subnet");
    }

    /** The lab's name prefix, e.g. {@code crl1234n1}. */
    public String id() {
        return id;
    }

    /** Host {@code i}, 1-based. */
    public Host host(int i) {
        return hosts.get(i - 1);
    }

    public List<Host> hosts() {
        return List.copyOf(hosts);
    }

    /** Where logs and the site file go; kept after close for reading. */
    public Path workDir() {
        return workDir;
    }

    /** Where processes keep their data (region files); deleted on close, after the processes are gone. */
    public Path scratchDir() {
        return workDir.resolve("data");
    }

    /** Takes host's link down on the switch side: its packets go nowhere, nothing is refused. */
    public void cutLink(Host host) {
        Cmd.check("ip", "-n", switchNs, "link", "set", host.switchPort(), "down");
        LOG.info("cut the link of {}", host);
    }

    /** Brings a cut link back up. */
    public void restoreLink(Host host) {
        Cmd.check("ip", "-n", switchNs, "link", "set", host.switchPort(), "up");
        LOG.info("restored the link of {}", host);
    }

    /**
     * Starts {@code command} inside {@code host}'s namespace, output (stdout and stderr) to
     * {@code <workDir>/<name>.log}, with {@code env} added to this JVM's environment. The lab kills it
     * on close.
     */
    public HostProcess start(Host host, String name, List<String> command, java.util.Map<String, String> env) {
        if (closed) {
            throw new IllegalStateException("lab " + id + " is closed");
        }
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", host.namespace()));
        full.addAll(command);
        HostProcess p = HostProcess.start(name, host, full, env, workDir.resolve(name + ".log"));
        processes.add(p);
        return p;
    }

    /** Every process started in the lab, in start order. */
    public List<HostProcess> processes() {
        synchronized (processes) {
            return List.copyOf(processes);
        }
    }

    /** Kills every process of the lab and deletes its namespaces (idempotent). */
    @Override
    public void close() {
        cleanUp();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            LOG.debug("shutting down already; the hook runs cleanUp itself");
        }
    }

    private synchronized void cleanUp() {
        if (closed) {
            return;
        }
        closed = true;
        for (HostProcess p : processes()) {
            p.kill9();
        }
        List<String> reversed = new ArrayList<>(namespaces);
        Collections.reverse(reversed);
        for (String ns : reversed) {
            deleteNamespace(ns);
        }
        deleteTree(scratchDir());
        LOG.info("network lab {} removed", id);
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            LOG.warn("cannot delete {}: {}", dir, e.toString());
        }
    }

    /** Kills whatever still runs in {@code ns} (only lab processes can) and deletes it. */
    private static void deleteNamespace(String ns) {
        Cmd.Result pids = Cmd.run("ip", "netns", "pids", ns);
        if (pids.ok()) {
            for (String pid : pids.output().split("\\s+")) {
                if (!pid.isBlank()) {
                    ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
        Cmd.Result del = Cmd.run("ip", "netns", "del", ns);
        if (!del.ok()) {
            LOG.warn("cannot delete network namespace {}: {}", ns, del.output().strip());
        }
    }

    /**
     * Deletes namespaces named by this scheme whose creating JVM no longer runs (a run killed before
     * it could clean up). Labs of running JVMs, this one's included, are left alone.
     */
    public static void removeLeftovers() {
        Cmd.Result list = Cmd.run("ip", "netns", "list");
        if (!list.ok()) {
            return;
        }
        List<String> hostsFirst = new ArrayList<>();
        List<String> switches = new ArrayList<>();
        for (String line : list.output().split("\n")) {
            String name = line.strip().split("\\s+")[0];
            Matcher m = NAME.matcher(name);
            if (!m.matches()) {
                continue;
            }
            long pid = Long.parseLong(m.group(1));
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            (m.group(3).equals("s") ? switches : hostsFirst).add(name);
        }
        hostsFirst.addAll(switches);
        for (String ns : hostsFirst) {
            LOG.info("removing network namespace {} left by a run that no longer exists", ns);
            deleteNamespace(ns);
        }
    }
}
