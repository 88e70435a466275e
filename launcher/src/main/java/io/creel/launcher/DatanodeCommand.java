package io.creel.launcher;

import io.creel.cli.CommonOptions;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.ops.DaemonHttp;
import io.creel.storage.StorageKeys;
import io.creel.storage.runtime.StorageServerRuntime;
import io.creel.storage.server.StorageServer;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code creel datanode --tier dram|disk}: a storage server daemon. */
@Command(name = "datanode", mixinStandardHelpOptions = true,
        description = "Run a storage server exporting one medium until interrupted.")
public final class DatanodeCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--tier", required = true, paramLabel = "TIER", description = "Medium to export: dram, disk or nvmf (an NVMe-oF namespace; see storage-nvmf/README.md).")
    String tier;

    @Option(names = "--size", paramLabel = "SIZE", description = "Bytes to export (default: creel.storage.<tier>.size).")
    String size;

    @Option(names = "--path", paramLabel = "DIR", description = "Directory for the medium's files (default: creel.storage.<tier>.path).")
    String path;

    @Option(names = "--port", paramLabel = "N", description = "Data port (default: creel.storage.port; 0 = any free port).")
    Integer port;

    @Option(names = "--class", paramLabel = "CLASS", description = "Storage class of its blocks (default: the tier name).")
    String storageClass;

    @Option(names = "--host", paramLabel = "HOST", description = "Host name clients use to reach it (default: creel.storage.advertise.host).")
    String host;

    @Override
    public Integer call() {
        StorageServer.findTier(tier); // an unknown tier is named before its settings are checked
        Map<String, String> o = new LinkedHashMap<>();
        if (size != null) {
            o.put("creel.storage." + tier + ".size", size);
        }
        if (path != null) {
            o.put("creel.storage." + tier + ".path", path);
        }
        if (port != null) {
            o.put(StorageKeys.PORT.name(), Integer.toString(port));
        }
        if (storageClass != null) {
            o.put(StorageKeys.CLASS.name(), storageClass);
        }
        if (host != null) {
            o.put(StorageKeys.ADVERTISE_HOST.name(), host);
        }
        CreelConf conf = common.loadConf().with(o);
        StorageServerRuntime rt = StorageServerRuntime.start(conf, tier);
        Optional<DaemonHttp> http;
        try {
            http = DaemonHttp.storageServer(conf, rt);
        } catch (RuntimeException e) {
            rt.close();
            throw e;
        }
        System.out.println("Creel " + tier + " storage server at " + rt.info().address() + ", registering with "
                + conf.explicitSettings().getOrDefault(ConfKeys.NAMENODE_ADDRESS.name(),
                        ConfKeys.NAMENODE_ADDRESS.defaultText()));
        http.ifPresent(h -> System.out.println("Creel " + tier + " storage server HTTP (/metrics, /health) on port "
                + h.port()));
        System.out.flush();
        // A decommissioned server has nothing left to serve: the daemon exits on its own.
        rt.onDecommissioned(() -> {
            System.out.println("Creel " + tier + " storage server at " + rt.info().address()
                    + " was decommissioned; exiting");
            System.out.flush();
            System.exit(0);
        });
        return Daemons.runUntilInterrupted(tier + " storage server", () -> {
            http.ifPresent(DaemonHttp::close);
            rt.close();
        });
    }
}
