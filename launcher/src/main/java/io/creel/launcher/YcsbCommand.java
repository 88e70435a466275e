package io.creel.launcher;

import io.creel.bench.modes.ycsb.YcsbProcess;
import io.creel.bench.modes.ycsb.YcsbResult;
import io.creel.cli.CliErrors;
import io.creel.cli.CommonOptions;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.ycsb.CreelDB;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code creel ycsb load|run WORKLOAD}: YCSB's client with the Creel binding, against the cluster
 * of {@code creel.namenode.address}. The client runs in a JVM of its own (YCSB ends its process
 * when it is done); its output is passed through, and the command fails (exit code 1) if any
 * operation did not succeed or any integrity check failed, which YCSB itself does not report in
 * its exit code.
 */
@Command(name = "ycsb", mixinStandardHelpOptions = true,
        description = {"Run YCSB's client against Creel: the load phase or the transaction (run) phase of a workload.",
                "WORKLOAD is one of YCSB's core workloads a..f (shipped with Creel) or a workload file.",
                "Creel keys (creel.*) are set with -p or --conf; the site file is read as by every command.",
                "Exit code 1 if any operation did not return OK or any dataintegrity check failed."})
public final class YcsbCommand implements Callable<Integer> {
    @Mixin
    CommonOptions common;

    @Parameters(index = "0", paramLabel = "load|run", description = "load: insert the records; run: the workload's operations.")
    String phase;

    @Parameters(index = "1", paramLabel = "WORKLOAD", description = "a, b, c, d, e, f (or workloada..workloadf), or a file.")
    String workload;

    @Option(names = "-p", paramLabel = "KEY=VALUE",
            description = "A YCSB or Creel property (repeatable), e.g. -p recordcount=100000 -p creel.ycsb.root=/bench.")
    List<String> properties = new ArrayList<>();

    @Option(names = "-threads", paramLabel = "N", defaultValue = "1", description = "Client threads (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "-target", paramLabel = "OPS", description = "Operations per second to aim at (default: as fast as possible).")
    Integer target;

    @Option(names = "-s", description = "Print YCSB's status every 10 seconds.")
    boolean status;

    @Option(names = "-db", paramLabel = "CLASS", description = "The YCSB DB class (default: the Creel binding, "
            + "io.creel.ycsb.CreelDB; io.creel.ycsb.redis.RedisHashDB drives a Redis server).")
    String db = CreelDB.class.getName();

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "1h",
            description = "The client is stopped if it runs longer (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Override
    public Integer call() {
        boolean load = switch (phase.toLowerCase(Locale.ROOT)) {
            case "load" -> true;
            case "run" -> false;
            default -> throw new CreelException(ErrorCode.INVALID_ARGUMENT, "the phase is load or run, not '" + phase
                    + "'");
        };
        if (threads < 1) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "-threads must be at least 1, not " + threads);
        }
        Duration limit;
        try {
            limit = ConfValues.parseDuration(timeout);
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "--timeout: " + e.getMessage());
        }
        CreelConf conf = common.loadConf(); // a bad --conf key stops here, before a JVM is started
        Map<String, String> props = new LinkedHashMap<>(workloadProperties(workload));
        props.putAll(conf.explicitSettings());
        for (String p : properties) {
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, "-p needs KEY=VALUE, got '" + p + "'");
            }
            props.put(p.substring(0, eq).trim(), p.substring(eq + 1));
        }
        if (target != null) {
            props.put("target", Integer.toString(target));
        }
        if (status) {
            props.put("status", "true");
        }
        YcsbProcess client = (load ? YcsbProcess.load(db) : YcsbProcess.run(db)).properties(props).threads(threads)
                .label("workload " + workload).echo(System.out).inheritStderr()
                .jvmOption("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
                .jvmOption("-Dorg.slf4j.simpleLogger.log.io.netty=warn");
        String confDir = System.getProperty(CommonOptions.CONF_DIR_PROPERTY);
        if (confDir != null && !confDir.isBlank()) {
            client.jvmOption("-D" + CommonOptions.CONF_DIR_PROPERTY + "=" + confDir);
        }
        YcsbResult result = client.start(limit);
        List<String> problems = result.problems(expectedOperations(load, props), List.of());
        if (!problems.isEmpty()) {
            System.err.println("creel: ycsb " + phase + " " + workload + ": " + String.join("; ", problems));
            return CliErrors.OPERATION_FAILED;
        }
        System.err.printf(Locale.ROOT, "creel: ycsb %s %s: %,d operations, all OK%s%n", phase, workload, result.done(),
                result.verified() > 0 ? String.format(Locale.ROOT, ", %,d values verified", result.verified()) : "");
        return 0;
    }

    /** How many operations the phase must complete, or -1 when a time limit may end it early. */
    private static long expectedOperations(boolean load, Map<String, String> props) {
        if (number(props, "maxexecutiontime") > 0) {
            return -1;
        }
        return load ? number(props, props.containsKey("insertcount") ? "insertcount" : "recordcount")
                : number(props, "operationcount");
    }

    private static long number(Map<String, String> props, String key) {
        String v = props.getOrDefault(key, "0").trim();
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, key + " = '" + v + "' is not a whole number");
        }
    }

    /** A core workload by name from the binding's jar, or a workload file. */
    static Map<String, String> workloadProperties(String name) {
        String n = name.toLowerCase(Locale.ROOT).replaceFirst("^workload", "");
        Properties p = new Properties();
        if (n.matches("[a-f]")) {
            String resource = YcsbProcess.WORKLOAD_RESOURCES + "workload" + n;
            try (InputStream in = CreelDB.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new CreelException(ErrorCode.INTERNAL, resource + " is missing from the class path");
                }
                p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new CreelException(ErrorCode.INTERNAL, "cannot read " + resource + ": " + e.getMessage(), e);
            }
        } else {
            Path file = Path.of(name);
            if (!Files.isRegularFile(file)) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + ": neither a core workload (a..f) nor a "
                        + "workload file");
            }
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, "cannot read " + file + ": " + e.getMessage(), e);
            }
        }
        Map<String, String> out = new LinkedHashMap<>();
        p.stringPropertyNames().stream().sorted().forEach(k -> out.put(k, p.getProperty(k)));
        return out;
    }
}
