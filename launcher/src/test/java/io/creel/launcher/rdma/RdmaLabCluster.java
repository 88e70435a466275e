package io.creel.launcher.rdma;

import io.creel.client.CreelClient;
import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A Creel cluster of real daemons on the lab's RDMA interface: a namenode reachable at
 * {@code rdma://addr:port} (and over TCP on the same port), and DRAM storage servers with the rdma
 * exporter, each in its own JVM, all registering over rdma://. Storage classes: {@code dram}, then
 * {@code victim} and {@code stale} for servers a test kills or fills; the namenode reuses freed
 * blocks at once, so stale locations are tested for real.
 */
final class RdmaLabCluster implements AutoCloseable {
    static final String CLASSES = "dram,victim,stale";

    private final InetAddress address;
    private final Path dir;
    private final Path confDir;
    private final int namenodePort;
    private final List<LabDaemon> daemons = new ArrayList<>();
    private final LabDaemon namenode;
    /** Settings every process of this cluster has on top of the lab's (a cluster secret). */
    private final Map<String, String> extra;

    /** A running datanode and the host:port it serves TCP on. */
    record Datanode(LabDaemon daemon, String address) {
    }

    RdmaLabCluster(InetAddress address, Path dir) throws Exception {
        this(address, dir, Map.of());
    }

    /** A cluster whose every process, clients included, also has the settings {@code extra}. */
    RdmaLabCluster(InetAddress address, Path dir, Map<String, String> extra) throws Exception {
        this.address = address;
        this.extra = Map.copyOf(extra);
        this.dir = dir;
        this.confDir = Files.createDirectories(dir.resolve("conf")); // empty: no site file
        try (ServerSocket probe = new ServerSocket(0)) {
            this.namenodePort = probe.getLocalPort();
        }
        List<String> args = new ArrayList<>(List.of("namenode", "--port", Integer.toString(namenodePort)));
        args.addAll(common());
        args.addAll(List.of("--conf", "creel.namenode.reuse.delay=0ms"));
        namenode = LabDaemon.start("namenode", dir.resolve("logs"), confDir, args);
        daemons.add(namenode);
        namenode.awaitLine("Creel namenode listening", 240);
    }

    /** What every process of the cluster shares. */
    private List<String> common() {
        // Emulated RDMA is slow: an rdma:// handshake (DaRPC registers its buffers on both sides) can
        // take seconds in the guest, so every process allows a minute for a connect.
        List<String> args = new ArrayList<>(List.of("--conf", "creel.namenode.address=" + rdmaAddress(),
                "--conf", "creel.storage.classes=" + CLASSES, "--conf", "creel.rdma.address=" + address.getHostAddress(),
                "--conf", "creel.client.connect.timeout=60s", "--conf", "creel.rdma.connect.timeout.ms=60000"));
        extra.forEach((k, v) -> args.addAll(List.of("--conf", k + "=" + v)));
        return args;
    }

    /** {@code rdma://addr:port}. */
    String rdmaAddress() {
        return "rdma://" + address.getHostAddress() + ":" + namenodePort;
    }

    /** The namenode's log. */
    LabDaemon namenode() {
        return namenode;
    }

    /** Starts a DRAM storage server of {@code storageClass} and waits until the namenode knows it. */
    Datanode datanode(String name, String storageClass, String size) throws Exception {
        List<String> args = new ArrayList<>(List.of("datanode", "--tier", "dram", "--size", size, "--class",
                storageClass, "--path", Files.createDirectories(Path.of("/dev/shm/creel-rdma-lab", name)).toString(),
                "--host", address.getHostAddress(), "--port", "0"));
        args.addAll(common());
        args.addAll(List.of("--conf", "creel.rdma.enabled=true")); // no RDMA here is a failure, not a quiet fallback
        LabDaemon d = LabDaemon.start(name, dir.resolve("logs"), confDir, args);
        daemons.add(d);
        // The daemon's own line (not the runtime's log line, which says more after the address).
        String ready = d.awaitLine("Creel dram storage server at ", 240);
        String at = ready.substring(ready.indexOf(" at ") + 4).split(",")[0].trim();
        awaitRegistered(at, 240);
        return new Datanode(d, at);
    }

    private void awaitRegistered(String server, long seconds) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try (CreelClient c = CreelClient.connect(tcpClientConf())) {
            while (System.nanoTime() < deadline) {
                for (StatusReply r : c.status().get(60, TimeUnit.SECONDS)) {
                    for (ServerStatus s : r.servers()) {
                        if (s.server().address().equals(server)) {
                            return;
                        }
                    }
                }
                Thread.sleep(250);
            }
        }
        throw new IllegalStateException("storage server " + server + " did not register within " + seconds + " s:\n"
                + namenode.tail());
    }

    /** A client reaching the namenode over rdma:// and the blocks over RDMA only: no quiet TCP fallback. */
    CreelConf rdmaClientConf() {
        return conf(rdmaAddress(), "rdma");
    }

    /** A client of the same cluster over TCP only (creel://, the tcp transport). */
    CreelConf tcpClientConf() {
        return conf("creel://" + address.getHostAddress() + ":" + namenodePort, "tcp");
    }

    private CreelConf conf(String namenodeAddress, String transports) {
        Map<String, String> s = new HashMap<>();
        s.put("creel.namenode.address", namenodeAddress);
        s.put("creel.storage.classes", CLASSES);
        s.put("creel.client.transports", transports);
        s.put("creel.rdma.address", address.getHostAddress());
        // Emulated RDMA is slow; a killed peer must show up through the transport, not a deadline.
        s.put("creel.rdma.op.timeout.ms", "120000");
        s.put("creel.client.request.timeout", "120s");
        s.put("creel.client.connect.timeout", "60s");
        s.put("creel.rdma.connect.timeout.ms", "60000");
        s.putAll(extra);
        return CreelConf.of(s);
    }

    @Override
    public void close() throws InterruptedException, IOException {
        for (int i = daemons.size() - 1; i >= 0; i--) {
            daemons.get(i).close();
        }
    }
}
