package io.creel.launcher;

import io.creel.cli.AdminCommand;
import io.creel.cli.CliErrors;
import io.creel.cli.CompletionCommand;
import io.creel.cli.ConfCommand;
import io.creel.cli.FsCommand;
import io.creel.cli.KvCommand;
import io.creel.cli.ReportCommand;
import io.creel.common.BuildInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code bin/creel}: the daemons, the local cluster, and the client commands under one name. The
 * tool commands ({@code bench}, {@code ycsb}) are there when their jars are on the class path: a
 * binary distribution keeps them in {@code lib/bench}, off the daemons' class path.
 */
@Command(name = "creel", mixinStandardHelpOptions = true, versionProvider = CreelMain.Version.class,
        description = "Creel: a tiered DRAM/disk store for the temporary data of data-processing jobs.",
        subcommands = {LocalCommand.class, NamenodeCommand.class, DatanodeCommand.class, FsCommand.class,
                KvCommand.class, ReportCommand.class, AdminCommand.class, ConfCommand.class, CompletionCommand.class})
public final class CreelMain {
    private static final Set<String> DAEMONS = Set.of("local", "namenode", "datanode");
    private static final Set<String> LEVELS = Set.of("off", "error", "warn", "info", "debug", "trace", "all");
    /** The level option; {@link #run} reads it before picocli parses, so logging is set up before any logger. */
    static final String LOG_LEVEL_OPTION = "--log-level";

    @Option(names = LOG_LEVEL_OPTION, scope = ScopeType.INHERIT, paramLabel = "LEVEL", converter = LevelName.class,
            description = "Log level: error, warn, info, debug, trace (default: CREEL_LOG_LEVEL, else info for daemons, "
                    + "warn for the client commands).")
    String logLevel;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command line and returns its exit code (for tests and {@link #main}). */
    public static int run(String... args) {
        configureLogging(DAEMONS.contains(commandName(args)), levelOption(args));
        CommandLine cli = new CommandLine(new CreelMain());
        addTool(cli, "bench", "io.creel.bench.BenchCommand", "io.creel.bench.BenchCommand");
        addTool(cli, "ycsb", "io.creel.launcher.YcsbCommand", "io.creel.ycsb.CreelDB");
        cli.addSubcommand("help", new CommandLine.HelpCommand());
        CliErrors.configure(cli);
        return cli.execute(args);
    }

    /**
     * Adds a tool command whose classes may be absent: the command is looked up by name so this
     * class never links to it, and added only when {@code marker}, a class of its jars, is there.
     * Where they are not (a daemon's class path, the container image, which has no lib/bench) the
     * name stays a hidden command that says so, rather than picocli's "unmatched argument".
     */
    static void addTool(CommandLine cli, String name, String command, String marker) {
        ClassLoader loader = CreelMain.class.getClassLoader();
        try {
            Class.forName(marker, false, loader);
            cli.addSubcommand(name, Class.forName(command, true, loader));
        } catch (ClassNotFoundException e) {
            cli.addSubcommand(name, new MissingTool(name, marker));
        }
    }

    /** A tool command whose jars this installation does not have: says so and exits 2. */
    @Command(hidden = true, description = "Not installed here (its jars are in lib/bench of the binary package).")
    static final class MissingTool implements Callable<Integer> {
        private final String name;
        private final String marker;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        /** Whatever the command line says: the answer is the same. */
        @CommandLine.Unmatched
        List<String> arguments;

        MissingTool(String name, String marker) {
            this.name = name;
            this.marker = marker;
        }

        @Override
        public Integer call() {
            spec.commandLine().getErr().println("creel: " + name + " is not installed here: its jars (lib/bench of the "
                    + "binary package, with " + marker + ") are not on this installation's class path; run it from "
                    + "the binary package or a source tree");
            return 2;
        }
    }

    /** The command a command line runs: its first word that is not the top level's --log-level option. */
    static String commandName(String... args) {
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals(LOG_LEVEL_OPTION)) {
                i++;
            } else if (!args[i].startsWith(LOG_LEVEL_OPTION + "=")) {
                return args[i];
            }
        }
        return "";
    }

    /** The value of {@code --log-level} anywhere on the command line, if it names a level. */
    static String levelOption(String... args) {
        for (int i = 0; i < args.length; i++) {
            String v = null;
            if (args[i].equals(LOG_LEVEL_OPTION) && i + 1 < args.length) {
                v = args[i + 1];
            } else if (args[i].startsWith(LOG_LEVEL_OPTION + "=")) {
                v = args[i].substring(LOG_LEVEL_OPTION.length() + 1);
            }
            if (v != null && LEVELS.contains(v.toLowerCase(Locale.ROOT))) {
                return v.toLowerCase(Locale.ROOT);
            }
        }
        return null;
    }

    /**
     * Daemons log what they do at INFO; client commands print only their output and, on failure,
     * one line. A daemon logs through log4j2 (conf/log4j2.xml: dates, files, rotation); a client
     * command through slf4j-simple to stderr, because starting log4j2 costs a command of under a
     * second a quarter of a second of CPU more. Set before any logger exists: both read these
     * properties once. A class path with one provider only (the tests') gets that one.
     */
    private static void configureLogging(boolean daemon, String option) {
        String provider = daemon ? "org.apache.logging.slf4j.SLF4JServiceProvider"
                : "org.slf4j.simple.SimpleServiceProvider";
        if (System.getProperty("slf4j.provider") == null && present(provider)) {
            System.setProperty("slf4j.provider", provider);
            // Else slf4j says on stderr which provider it was told to use.
            setIfAbsent("slf4j.internal.verbosity", "WARN");
        }
        String level = option != null ? option : System.getProperty("creel.log.level", envLevel(daemon ? "info" : "warn"));
        System.setProperty("creel.log.level", level);
        String home = System.getProperty("creel.home");
        String logDir = envOr("CREEL_LOG_DIR", home == null ? null : Path.of(home, "logs").toString());
        if (logDir != null) {
            setIfAbsent("creel.log.dir", logDir);
        }
        String logFile = System.getenv("CREEL_LOG_FILE");
        if (logFile != null && !logFile.isBlank()) {
            setIfAbsent("creel.log.file", logFile);
        }
        String config = configFile();
        if (config != null) {
            setIfAbsent("log4j2.configurationFile", config);
        }
        setIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", level);
        setIfAbsent("org.slf4j.simpleLogger.log.io.netty", "warn");
        setIfAbsent("org.slf4j.simpleLogger.log.com.ibm", "warn");
        setIfAbsent("org.slf4j.simpleLogger.showDateTime", "true");
        setIfAbsent("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        setIfAbsent("org.slf4j.simpleLogger.showShortLogName", "true");
        setIfAbsent("org.slf4j.simpleLogger.showThreadName", "false");
    }

    /**
     * conf/log4j2.xml of the configuration directory, else of CREEL_HOME; null leaves log4j2 to the
     * launcher jar's copy (found on the class path).
     */
    private static String configFile() {
        String home = System.getProperty("creel.home");
        for (String dir : new String[] {System.getProperty("creel.conf.dir"),
                home == null ? null : Path.of(home, "conf").toString()}) {
            if (dir != null && Files.isRegularFile(Path.of(dir, "log4j2.xml"))) {
                return Path.of(dir, "log4j2.xml").toString();
            }
        }
        return null;
    }

    /** CREEL_LOG_LEVEL if it names a level, else {@code fallback} (a wrong name is said, not fatal). */
    private static String envLevel(String fallback) {
        String v = System.getenv("CREEL_LOG_LEVEL");
        if (v == null || v.isBlank()) {
            return fallback;
        }
        if (!LEVELS.contains(v.trim().toLowerCase(Locale.ROOT))) {
            System.err.println("creel: CREEL_LOG_LEVEL=" + v + " is not a level (error, warn, info, debug, trace); "
                    + "logging at " + fallback);
            return fallback;
        }
        return v.trim().toLowerCase(Locale.ROOT);
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, CreelMain.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static String envOr(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static void setIfAbsent(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }

    /** Accepts a level's name only, so a misspelt level is a usage error, not a silent default. */
    static final class LevelName implements CommandLine.ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!LEVELS.contains(value.toLowerCase(Locale.ROOT))) {
                throw new CommandLine.TypeConversionException("'" + value
                        + "' is not a level (error, warn, info, debug, trace)");
            }
            return value.toLowerCase(Locale.ROOT);
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
