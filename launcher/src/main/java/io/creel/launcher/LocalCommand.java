package io.creel.launcher;

import io.creel.cli.CommonOptions;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.net.HostPort;
import io.creel.minicluster.MiniCluster;
import io.creel.ops.DaemonHttp;
import io.creel.ops.OpsKeys;
import io.creel.storage.local.transport.SameHostFiles;
import io.creel.storage.runtime.StorageServerRuntime;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code creel local}: a namenode, a DRAM and a disk storage server in one process on localhost. */
@Command(name = "local", mixinStandardHelpOptions = true,
        description = "Run a one-machine cluster (namenode + DRAM + disk storage server, and DRAM servers of smaller "
                + "blocks for small Files and KeyValues) until interrupted.")
public final class LocalCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--dram", paramLabel = "SIZE", defaultValue = "512m",
            description = "DRAM tier size (default: ${DEFAULT-VALUE}).")
    String dram;

    @Option(names = "--disk", paramLabel = "SIZE", defaultValue = "2g",
            description = "Disk tier size (default: ${DEFAULT-VALUE}).")
    String disk;

    @Option(names = "--size-classes", split = ",", paramLabel = "SIZE[,SIZE...]", defaultValue = "none",
            description = "Block sizes of size-class DRAM servers to start next to the DRAM server, each of --dram, "
                    + "e.g. 16k,64k: the first blocks of small Files and KeyValues come from them "
                    + "(creel.storage.block.size). Off by default, so that --dram is all the DRAM the cluster "
                    + "takes and big Files spill to disk once it is full (default: ${DEFAULT-VALUE}).")
    List<String> sizeClasses;

    @Option(names = "--data-dir", paramLabel = "DIR",
            description = "Directory for the disk tier's files (default: creel.storage.disk.path).")
    Path dataDir;

    @Option(names = "--port", paramLabel = "N", description = "Namenode port (default: the port of creel.namenode.address).")
    Integer port;

    @Override
    public Integer call() {
        CreelConf conf = common.loadConf();
        long dramBytes = parseSize("--dram", dram);
        long diskBytes = parseSize("--disk", disk);
        int nnPort = port != null ? port : conf.get(ConfKeys.NAMENODE_ADDRESS).get(0).port();
        long[] classes = sizeClasses.equals(List.of("none")) ? new long[0]
                : sizeClasses.stream().mapToLong(v -> parseSize("--size-classes", v)).toArray();
        MiniCluster.Builder b = MiniCluster.builder().port(nnPort).dram(dramBytes).disk(diskBytes)
                .servers(dramBytes > 0 ? 1 : 0, diskBytes > 0 ? 1 : 0).sizeClasses(classes);
        for (Map.Entry<String, String> e : conf.explicitSettings().entrySet()) {
            if (!e.getKey().equals(ConfKeys.NAMENODE_ADDRESS.name())) {
                b.set(e.getKey(), e.getValue());
            }
        }
        if (dataDir != null) {
            b.diskDir(dataDir);
        }
        // One process, one HTTP server for all of it, up before the cluster so its RPC metrics see every
        // connection; a free port unless creel.http.port names one.
        String host = conf.get(OpsKeys.HTTP_HOST).isEmpty() ? "127.0.0.1" : conf.get(OpsKeys.HTTP_HOST);
        DaemonHttp http = DaemonHttp.localCluster(host, conf.get(OpsKeys.HTTP_PORT));
        MiniCluster cluster = null;
        try {
            cluster = b.start();
            List<HostPort> addresses = cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS);
            http.clusterServing(cluster.namenodes(), addresses, cluster.storageServers());
        } catch (RuntimeException e) {
            http.close();
            if (cluster != null) {
                cluster.close();
            }
            throw e;
        }
        MiniCluster started = cluster;
        PrintStream out = System.out;
        out.println("Creel local cluster serving at " + cluster.address().toUri().replace("127.0.0.1", "localhost"));
        for (StorageServerRuntime s : cluster.storageServers()) {
            StorageServerInfo i = s.info();
            out.printf("  %-5s tier  %10s in %s blocks  at %s  (%s)%n", i.tier(),
                    ConfValues.formatSize(i.blockCount() * i.blockSize()), ConfValues.formatSize(i.blockSize()),
                    i.address(), SameHostFiles.of(i).dataPath());
        }
        out.println("Status page http://localhost:" + http.port() + "/   metrics http://localhost:" + http.port()
                + "/metrics   health http://localhost:" + http.port() + "/health");
        out.println("Try: bin/creel fs put FILE /x   |   bin/creel report   |   Ctrl-C stops the cluster");
        out.flush();
        return Daemons.runUntilInterrupted("local cluster", () -> {
            http.close();
            started.close();
        });
    }

    static long parseSize(String option, String text) {
        try {
            return ConfValues.parseSize(text);
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(new LocalCommand()),
                    option + ": " + e.getMessage());
        }
    }
}
