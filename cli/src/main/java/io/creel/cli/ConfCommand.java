package io.creel.cli;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfLayers;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code creel conf}: the configuration this machine's commands and daemons run with, and where
 * each value came from. It reads the layers exactly as every other command does, so what it
 * prints is what a {@code bin/creel namenode} started here with the same environment would use.
 */
@Command(name = "conf", description = {"Print the effective configuration and where each value came from: "
        + "default, site file, environment (CREEL_<KEY>) or --conf.",
    "Lines are 'KEY = VALUE  # SOURCE', sorted by key."}, mixinStandardHelpOptions = true)
public final class ConfCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;
    @Spec
    CommandSpec spec;
    @Option(names = "--changed", description = "Only keys not at their default.")
    boolean changed;
    @Parameters(arity = "0..*", paramLabel = "KEY", description = "Only these keys (default: all).")
    List<String> keys = new ArrayList<>();

    public ConfCommand() {
    }

    @Override
    public Integer call() {
        for (String k : keys) {
            if (!ConfKeys.all().containsKey(k)) {
                throw new CreelException(ErrorCode.CONFIGURATION, "unknown key '" + k + "'");
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        for (ConfLayers.Setting s : common.layers().settings()) {
            if ((keys.isEmpty() || keys.contains(s.key())) && (!changed || !s.source().equals("default"))) {
                out.println(s.key() + " = " + s.value() + "  # " + s.source());
            }
        }
        out.flush();
        return 0;
    }
}
