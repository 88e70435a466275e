package io.creel.launcher;

import io.creel.client.cli.CommonOptions;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.namenode.NamenodeServer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code creel namenode}: the metadata server daemon. */
@Command(name = "namenode", mixinStandardHelpOptions = true, description = "Run a namenode until interrupted.")
public final class NamenodeCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Option(names = "--port", paramLabel = "N", description = "Port (default: the port of the first creel.namenode.address).")
    Integer port;

    @Override
    public Integer call() {
        CreelConf conf = common.loadConf();
        int p = port != null ? port : conf.get(ConfKeys.NAMENODE_ADDRESS).get(0).port();
        NamenodeServer nn = NamenodeServer.start(conf, conf.get(ConfKeys.NAMENODE_BIND_HOST), p);
        System.out.println("Creel namenode listening on " + conf.get(ConfKeys.NAMENODE_BIND_HOST) + ":" + nn.port());
        System.out.flush();
        return Daemons.runUntilInterrupted("namenode", nn);
    }
}
