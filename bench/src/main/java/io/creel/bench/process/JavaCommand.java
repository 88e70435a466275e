package io.creel.bench.process;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a child JVM like this one: the same {@code java}, the same class path, and
 * the JVM options of this process that a child should share (heap and direct-memory limits,
 * system properties such as {@code creel.home}), so a cluster or client the bench starts runs as
 * {@code bin/creel} would run it. Profilers, agents and debuggers are not passed on: two JVMs
 * writing one flight recording, or listening on one debug port, would collide; a child that
 * should be profiled gets its own options.
 */
public final class JavaCommand {
    private static final List<String> NOT_INHERITED = List.of("-XX:StartFlightRecording", "-XX:FlightRecorderOptions",
            "-XX:+FlightRecorder", "-javaagent:", "-agentlib:", "-agentpath:", "-Xrunjdwp", "-Xdebug");

    private JavaCommand() {
    }

    /** {@code java <inherited options> <extra options> -cp <this class path> <main> <args>}. */
    public static List<String> of(Class<?> main, List<String> extraOptions, List<String> args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(javaExecutable().toString());
        cmd.addAll(inheritable(ManagementFactory.getRuntimeMXBean().getInputArguments()));
        cmd.addAll(extraOptions);
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(main.getName());
        cmd.addAll(args);
        return cmd;
    }

    /** The {@code java} executable of this JVM. */
    public static Path javaExecutable() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }

    /** Of this JVM's options {@code inputArguments}, those a child JVM gets too. */
    static List<String> inheritable(List<String> inputArguments) {
        return inputArguments.stream().filter(a -> NOT_INHERITED.stream().noneMatch(a::startsWith)).toList();
    }

    /** Splits a user's option string ("-Xmx4g -XX:+UseG1GC") at white space; blank gives none. */
    public static List<String> splitOptions(String options) {
        if (options == null || options.isBlank()) {
            return List.of();
        }
        return List.of(options.trim().split("\\s+"));
    }
}
