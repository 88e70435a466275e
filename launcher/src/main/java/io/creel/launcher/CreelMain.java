package io.creel.launcher;

import io.creel.bench.BenchCommand;
import io.creel.cli.AdminCommand;
import io.creel.common.BuildInfo;
import io.creel.cli.CliErrors;
import io.creel.cli.FsCommand;
import io.creel.cli.KvCommand;
import io.creel.cli.ReportCommand;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/creel}: the daemons, the local cluster, and the client commands under one name. */
@Command(name = "creel", mixinStandardHelpOptions = true, versionProvider = CreelMain.Version.class,
        description = "Creel: a tiered DRAM/disk store for the temporary data of data-processing jobs.",
        subcommands = {LocalCommand.class, NamenodeCommand.class, DatanodeCommand.class, FsCommand.class,
                KvCommand.class, ReportCommand.class, AdminCommand.class, BenchCommand.class, YcsbCommand.class,
                CommandLine.HelpCommand.class})public final class CreelMain {
    private static final Set<String> DAEMONS = Set.of("local", "namenode", "datanode");

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit code (for tests and {@link #main}). */
    public static int run(String... args) {
        configureLogging(args.length > 0 && DAEMONS.contains(args[0]));
        CommandLine cli = new CommandLine(new CreelMain());
        CliErrors.configure(cli);
        return cli.execute(args);
    }

    /**
     * Daemons log what they do at INFO; client commands print only their output and, on failure,
     * one line. slf4j-simple reads these properties once, so they are set before any logger exists.
     */
    private static void configureLogging(boolean daemon) {
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", daemon ? "info" : "warn");
        setIfAbsent("org.slf4j.simpleLogger.log.io.netty", "warn");
        setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        setIfAbsent("org.slf4j.simpleLogger.showShortLogName", "true");
        setIfAbsent("org.slf4j.simpleLogger.showThreadName", "false");
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** {@code --version}: the release and commit (the build's), and the JVM running them. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            BuildInfo b = BuildInfo.current();
            return new String[] {"creel " + b.version() + " (commit " + b.commit() + ")",
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + "), "
                        + System.getProperty("os.name") + " " + System.getProperty("os.arch")};
        }
    }
}
