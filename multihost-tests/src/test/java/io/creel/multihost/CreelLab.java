package io.creel.multihost;

import io.creel.launcher.CreelMain;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A Creel cluster of real processes on a {@link NetworkLab}: namenodes and storage servers as
 * {@code CreelMain namenode|datanode} JVMs, clients as {@link ClientDriver} or {@code CreelMain}
 * command JVMs, each in the namespace of the host it is started on.
 *
 * <p>Every process reads the same site file ({@code <workDir>/conf/creel-site.conf}, through
 * {@code CREEL_CONF_DIR}): the namenode addresses, a small block size, short client timeouts and
 * {@code creel.client.local.access=false} (all namespaces share one file system, so without it a
 * client would map a server's region file and bypass the network under test). Namenodes listen on
 * {@link #NAMENODE_PORT}, storage servers on {@link #STORAGE_PORT} and advertise their host's address.
 *
 * <p>A {@link LabSecurity#AUTH_TLS} cluster adds the cluster secret, TLS with client certificates
 * and, per host, that host's certificate: each host then has its own site file.
 */
public final class CreelLab {
    public static final int NAMENODE_PORT = 9060;
    public static final int STORAGE_PORT = 9070;
    /** How long a daemon may take to start and register (JVM start on a busy 2-core machine included). */
    public static final Duration START_TIMEOUT = Duration.ofSeconds(45);

    private final NetworkLab net;
    private final List<NetworkLab.Host> namenodeHosts;
    private final LabSecurity security;
    private final LabCredentials credentials;
    private final Map<String, String> settings;
    private final Path confDir;

    /** Defaults of the lab cluster; a test may override any of them. */
    public static Map<String, String> defaultSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("creel.block.size", "64k");
        s.put("creel.storage.classes", "dram");
        s.put("creel.client.connect.timeout", "3s");
        s.put("creel.client.request.timeout", "3s");
        // Retries of a refused namenode connection end within the connect timeout: a killed namenode
        // fails client commands within it (NamenodeUnreachableTest).
        s.put("creel.client.retry.deadline", "2s");
        s.put("creel.client.local.access", "false");
        s.put("creel.storage.heartbeat.interval", "500ms");
        s.put("creel.namenode.server.timeout", "3s");
        s.put("creel.net.event.loops", "2");
        return s;
    }

    /**
     * A {@link LabSecurity#PLAIN} cluster whose namenodes will run on {@code namenodeHosts} (in
     * partition order), with {@link #defaultSettings()} overridden by {@code overrides}. Starts nothing yet.
     */
    public CreelLab(NetworkLab net, List<NetworkLab.Host> namenodeHosts, Map<String, String> overrides) {
        this(net, namenodeHosts, overrides, LabSecurity.PLAIN);
    }

    /**
     * A cluster protected as {@code security} says. With {@link LabSecurity#AUTH_TLS} it makes the
     * secret and certificates ({@link LabCredentials}) and gives each host its own site file
     * ({@code conf/host<i>/creel-site.conf}: the shared keys plus that host's certificate).
     */
    public CreelLab(NetworkLab net, List<NetworkLab.Host> namenodeHosts, Map<String, String> overrides,
                    LabSecurity security) {
        this.net = net;
        this.namenodeHosts = List.copyOf(namenodeHosts);
        this.security = security;
        this.settings = defaultSettings();
        settings.put("creel.namenode.address", namenodeHosts.stream()
                .map(h -> "creel://" + h.ip() + ":" + NAMENODE_PORT).collect(Collectors.joining(",")));
        this.credentials = security == LabSecurity.AUTH_TLS
                ? LabCredentials.create(net.scratchDir().resolve("security"), net.hosts()) : null;
        if (credentials != null) {
            settings.putAll(credentials.clusterSettings());
        }
        settings.putAll(overrides);
        this.confDir = net.workDir().resolve("conf");
        writeSiteFile(confDir, settings);
        if (credentials != null) {
            for (NetworkLab.Host h : net.hosts()) {
                Map<String, String> s = new LinkedHashMap<>(settings);
                s.putAll(credentials.hostSettings(h));
                writeSiteFile(hostConfDir(h), s);
            }
        }
    }

    private void writeSiteFile(Path dir, Map<String, String> values) {
        try {
            Files.createDirectories(dir);
            StringBuilder text = new StringBuilder("# written by CreelLab for network lab " + net.id() + "\n");
            values.forEach((k, v) -> text.append(k).append(" = ").append(v).append('\n'));
            Files.writeString(dir.resolve("creel-site.conf"), text);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the lab's site file in " + dir, e);
        }
    }

    private Path hostConfDir(NetworkLab.Host host) {
        return credentials == null ? confDir : confDir.resolve("host" + host.index());
    }

    /** How this cluster protects its connections. */
    public LabSecurity security() {
        return security;
    }

    /** The secret and certificates of an {@link LabSecurity#AUTH_TLS} cluster; fails for a plain one. */
    LabCredentials credentials() {
        if (credentials == null) {
            throw new IllegalStateException("a " + security + " cluster has no credentials");
        }
        return credentials;
    }

    public NetworkLab net() {
        return net;
    }

    /** The effective value of a setting, e.g. a timeout the test bounds elapsed times with. */
    public String setting(String key) {
        return settings.get(key);
    }

    /** A duration setting in milliseconds (the lab writes them as {@code Ns} or {@code Nms}). */
    public long millis(String key) {
        return io.creel.common.conf.ConfValues.parseDuration(settings.get(key)).toMillis();
    }

    /** {@code ip:port} of a namenode host. */
    public String namenodeAddress(NetworkLab.Host host) {
        return host.ip() + ":" + NAMENODE_PORT;
    }

    /** {@code ip:port} of the storage server on {@code host}. */
    public String storageAddress(NetworkLab.Host host) {
        return host.ip() + ":" + STORAGE_PORT;
    }

    /** Starts a namenode on {@code host} and waits until it serves. */
    public HostProcess startNamenode(NetworkLab.Host host, String name) {
        HostProcess p = net.start(host, name, java(CreelMain.class.getName(), "namenode",
                "--port", Integer.toString(NAMENODE_PORT)), env(host));
        p.waitForLine("namenode serving on", START_TIMEOUT);
        return p;
    }

    /**
     * Starts a DRAM storage server exporting {@code size} on {@code host} and waits until every
     * namenode has registered it. Its region file lives in the lab's scratch directory.
     */
    public HostProcess startDatanode(NetworkLab.Host host, String name, String size) {
        Path data = net.scratchDir().resolve(name);
        HostProcess p = net.start(host, name, java(CreelMain.class.getName(), "datanode", "--tier", "dram",
                "--size", size, "--path", data.toString(), "--port", Integer.toString(STORAGE_PORT),
                "--host", host.ip()), env(host));
        for (int i = 0; i < namenodeHosts.size(); i++) {
            p.waitForLine("registered with namenode", START_TIMEOUT);
        }
        return p;
    }

    /** Starts a {@link ClientDriver} on {@code host} (see its usage); returns at once. */
    public HostProcess startDriver(NetworkLab.Host host, String name, String... args) {
        return net.start(host, name, java(ClientDriver.class.getName(), args), env(host));
    }

    /**
     * Starts a {@link ClientDriver} on {@code host} whose configuration is the host's with
     * {@code overrides} on top (written to {@code conf/<name>/creel-site.conf}; an empty value sets
     * a key to empty): a client configured unlike the cluster, e.g. without its secret.
     */
    public HostProcess startDriver(NetworkLab.Host host, String name, Map<String, String> overrides, String... args) {
        Map<String, String> s = new LinkedHashMap<>(settings);
        if (credentials != null) {
            s.putAll(credentials.hostSettings(host));
        }
        s.putAll(overrides);
        Path dir = confDir.resolve(name);
        writeSiteFile(dir, s);
        return net.start(host, name, java(ClientDriver.class.getName(), args), Map.of("CREEL_CONF_DIR", dir.toString()));
    }

    /** Runs {@code bin/creel ARGS} (i.e. {@code CreelMain}) on {@code host}; returns at once. */
    public HostProcess startCli(NetworkLab.Host host, String name, String... args) {
        return net.start(host, name, java(CreelMain.class.getName(), args), env(host));
    }

    /** Runs a driver to completion and fails unless it exits 0. */
    public HostProcess runDriver(NetworkLab.Host host, String name, Duration timeout, String... args) {
        HostProcess p = startDriver(host, name, args);
        int code = p.waitForExit(timeout);
        if (code != 0) {
            throw new AssertionError(name + " exited " + code + "; its log:\n" + p.tail(40));
        }
        return p;
    }

    private Map<String, String> env(NetworkLab.Host host) {
        return Map.of("CREEL_CONF_DIR", hostConfDir(host).toString());
    }

    /** A JVM command with this test JVM's class path, small and quick to start. */
    private static List<String> java(String mainClass, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(List.of("-Xmx256m", "-XX:MaxDirectMemorySize=256m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }
}
