package io.creel.dist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The binary distribution as a user gets it: the tarball unpacked into an empty directory, run
 * with a JRE and a PATH that has no Maven, far from the source tree. Daemons started with
 * sbin/creel-daemon.sh serve a put and a get through bin/creel.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class DistributionIT {
    private static final String VERSION = System.getProperty("creel.dist.version");
    /** Jars of the tools and of other platforms, which must not be on a daemon's class path. */
    private static final Pattern NOT_FOR_DAEMONS =
            Pattern.compile("(?i).*(bench|ycsb|jedis|xchart|pdfbox|fontbox|hdrhistogram|vectorgraphics|osx|windows"
                    + "|junit).*");
    /** Commands bin/creel and sbin/creel-daemon.sh use; Maven is not among them. */
    private static final List<String> TOOLS = List.of("bash", "sh", "env", "dirname", "basename", "sed", "head",
            "tail", "grep", "cat", "rm", "mv", "mkdir", "touch", "sleep", "seq", "tr", "id", "hostname", "nohup");

    @TempDir
    static Path dir;
    private static Path home;
    private static Map<String, String> env;

    @BeforeAll
    static void unpack() throws Exception {
        Path tarball = Path.of(System.getProperty("creel.dist.tarball"));
        assertTrue(Files.isRegularFile(tarball), tarball + " (built by the package phase)");
        Path into = Files.createDirectories(dir.resolve("install"));
        Process tar = new ProcessBuilder("tar", "xzf", tarball.toString(), "-C", into.toString()).inheritIO().start();
        assertTrue(tar.waitFor(60, TimeUnit.SECONDS), "tar finished");
        assertEquals(0, tar.exitValue());
        home = into.resolve("creel-" + VERSION);

        // A PATH of the few commands the scripts use, each a one-line script that runs the system's:
        // no mvn, no source tree around.
        Path bin = Files.createDirectories(dir.resolve("path"));
        for (String tool : TOOLS) {
            Path found = Stream.of("/usr/bin", "/bin", "/usr/sbin", "/sbin").map(d -> Path.of(d, tool))
                    .filter(Files::isExecutable).findFirst().orElseThrow(() -> new AssertionError("no " + tool));
            Path wrapper = Files.writeString(bin.resolve(tool), "#!/bin/sh\nexec " + found + " \"$@\"\n");
            assertTrue(wrapper.toFile().setExecutable(true), wrapper.toString());
        }
        env = new HashMap<>();
        env.put("PATH", bin.toString());
        env.put("JAVA_HOME", System.getProperty("java.home"));
        env.put("HOME", dir.toString());
        env.put("USER", System.getProperty("user.name"));
        env.put("CREEL_PID_DIR", dir.resolve("pids").toString());
        env.put("TMPDIR", dir.toString());

        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        // As an operator would: the cluster's address in the installation's own site file.
        Files.writeString(home.resolve("conf/creel-site.conf"),
                "\ncreel.namenode.address = creel://127.0.0.1:" + port + "\n", java.nio.file.StandardOpenOption.APPEND);
    }

    @AfterAll
    static void stopWhatIsLeft() throws Exception {
        // A failed test must not leave daemons behind: stop them, then kill what the pid files name.
        if (home == null) {
            return;
        }
        run("sbin/creel-daemon.sh", "stop", "datanode", "--tier", "dram");
        run("sbin/creel-daemon.sh", "stop", "namenode");
        Path pids = dir.resolve("pids");
        if (Files.isDirectory(pids)) {
            try (Stream<Path> files = Files.list(pids)) {
                for (Path p : files.toList()) {
                    ProcessHandle.of(Long.parseLong(Files.readString(p).trim())).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
        }
    }

    private record Result(int exit, String out, String err) {
    }

    /** Runs a command of the installation (relative to its root) with the bare environment. */
    private static Result run(String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(command));
        cmd.set(0, home.resolve(command[0]).toString());
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(String.join(" ", command) + " did not finish within 90 s");
        }
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static List<String> names(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theTarballHoldsTheLayoutAUserExpects() throws Exception {
        for (String f : List.of("bin/creel", "sbin/creel-daemon.sh")) {
            assertTrue(Files.isExecutable(home.resolve(f)), f);
        }
        for (String f : List.of("README.md", "LICENSE", "NOTICE", "conf/creel-site.conf", "conf/log4j2.xml",
                "docs/deployment.md", "client/README.md", "client/creel-hadoop-" + VERSION + ".jar",
                "client/creel-spark-" + VERSION + ".jar", "lib/creel-launcher-" + VERSION + ".jar",
                "lib/bench/creel-bench-" + VERSION + ".jar", "lib/bench/creel-ycsb-binding-" + VERSION + ".jar")) {
            assertTrue(Files.isRegularFile(home.resolve(f)), f);
        }
        assertTrue(Files.isDirectory(home.resolve("logs")), "logs/");
        assertTrue(Files.readString(home.resolve("LICENSE")).contains("Apache License"), "LICENSE");
        assertTrue(names(home.resolve("lib/bench")).stream().anyMatch(n -> n.startsWith("jedis-")),
                "the Redis client goes with the tools");
    }

    @Test
    void theDaemonsClassPathHasNoToolsAndNoOtherPlatformsJars() throws Exception {
        List<String> lib = names(home.resolve("lib")).stream().filter(n -> n.endsWith(".jar")).toList();
        assertTrue(lib.size() > 20, lib.toString());
        assertEquals(List.of(), lib.stream().filter(n -> NOT_FOR_DAEMONS.matcher(n).matches()).toList());
        assertEquals(List.of(), names(home.resolve("lib/bench")).stream().filter(n -> n.contains("junit")).toList(),
                "no test library ships");
    }

    @Test
    void everyCreelJarNamesItsVersionAndCommit() throws Exception {
        try (JarFile jar = new JarFile(home.resolve("lib/creel-launcher-" + VERSION + ".jar").toFile())) {
            var attributes = jar.getManifest().getMainAttributes();
            assertEquals(VERSION, attributes.getValue("Implementation-Version"));
            assertNotNull(attributes.getValue("Implementation-Build"));
        }
        Result version = run("bin/creel", "--version");
        assertEquals(0, version.exit(), version.err());
        assertTrue(version.out().startsWith("creel " + VERSION + " (commit "), version.out());
    }

    @Test
    void theToolsRunWithTheirJarsAndAreListed() throws Exception {
        Result help = run("bin/creel", "--help");
        assertEquals(0, help.exit(), help.err());
        assertTrue(help.out().contains("bench") && help.out().contains("ycsb"), help.out());
        Result bench = run("bin/creel", "bench", "--help");
        assertEquals(0, bench.exit(), bench.out() + bench.err());
        Result ycsb = run("bin/creel", "ycsb", "--help");
        assertEquals(0, ycsb.exit(), ycsb.out() + ycsb.err());
    }

    @Test
    void mavenIsNotOnThePath() throws Exception {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", "command -v mvn");
        pb.environment().clear();
        pb.environment().putAll(env);
        Process p = pb.start();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS));
        assertNotEquals(0, p.exitValue(), "mvn found on the test's PATH");
    }

    @Test
    void daemonsStartedBySbinServeAPutAndAGetThroughBinCreel() throws Exception {
        // A pid file left by a crash, naming a live process that is not Creel (this JVM): not running.
        Path pidFile = dir.resolve("pids/creel-" + env.get("USER") + "-namenode.pid");
        Files.createDirectories(pidFile.getParent());
        Files.writeString(pidFile, ProcessHandle.current().pid() + "\n");
        assertEquals(3, run("sbin/creel-daemon.sh", "status", "namenode").exit(), "a reused pid is not the daemon");
        Result nothing = run("sbin/creel-daemon.sh", "stop", "namenode");
        assertEquals(0, nothing.exit(), nothing.err());
        assertEquals("no namenode to stop\n", nothing.out());
        assertTrue(ProcessHandle.current().isAlive());

        Result nn = run("sbin/creel-daemon.sh", "start", "namenode");
        assertEquals(0, nn.exit(), nn.out() + nn.err());
        assertTrue(nn.out().contains("Creel namenode listening on"), nn.out());
        Result again = run("sbin/creel-daemon.sh", "start", "namenode");
        assertEquals(1, again.exit(), "a second namenode is refused");
        assertTrue(again.err().contains("namenode is already running as process"), again.err());

        Result dn = run("sbin/creel-daemon.sh", "start", "datanode", "--tier", "dram", "--size", "32m", "--path",
                dir.resolve("dram").toString());
        assertEquals(0, dn.exit(), dn.out() + dn.err());
        Result status = run("sbin/creel-daemon.sh", "status", "datanode", "--tier", "dram");
        assertEquals(0, status.exit(), status.out());
        assertTrue(status.out().startsWith("datanode-dram is running as process "), status.out());

        long namenodePid = Long.parseLong(Files.readString(pidFile).trim());
        String commandLine = ProcessHandle.of(namenodePid).orElseThrow().info().commandLine().orElse("");
        assertTrue(commandLine.contains(home.resolve("lib") + "/*"), commandLine);
        assertTrue(!commandLine.contains("lib/bench"), "the daemon runs without the tools' jars: " + commandLine);

        awaitLiveServer();
        byte[] data = new byte[5 << 20];
        new Random(27).nextBytes(data);
        Path in = Files.write(dir.resolve("in.bin"), data);
        assertEquals(0, run("bin/creel", "fs", "mkdir", "/dist").exit());
        Result put = run("bin/creel", "fs", "put", in.toString(), "/dist/in.bin");
        assertEquals(0, put.exit(), put.err());
        Result get = run("bin/creel", "fs", "get", "/dist/in.bin", dir.resolve("out.bin").toString());
        assertEquals(0, get.exit(), get.err());
        assertArrayEquals(data, Files.readAllBytes(dir.resolve("out.bin")));

        Result missing = run("bin/creel", "fs", "get", "/dist/missing", dir.resolve("x").toString());
        assertEquals(1, missing.exit());
        assertEquals(1, missing.err().lines().count(), "a client error is one line: " + missing.err());
        assertTrue(missing.err().startsWith("creel: "), missing.err());

        assertEquals(0, run("sbin/creel-daemon.sh", "stop", "datanode", "--tier", "dram").exit());
        Result stop = run("sbin/creel-daemon.sh", "stop", "namenode");
        assertEquals(0, stop.exit(), stop.err());
        assertEquals(3, run("sbin/creel-daemon.sh", "status", "namenode").exit(), "stopped");

        // The namenode's own log file: dated lines, from start to stop.
        Path log;
        try (Stream<Path> logs = Files.list(home.resolve("logs"))) {
            log = logs.filter(p -> p.getFileName().toString().matches("creel-.*-namenode-.*\\.log")).findFirst()
                    .orElseThrow(() -> new AssertionError("no namenode log in logs/"));
        }
        String text = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(Pattern.compile("(?m)^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  "
                + "\\[main] i\\.c\\.n\\.NamenodeServer - namenode serving on ").matcher(text).find(), text);
        assertTrue(text.contains("stopping namenode"), text);
    }

    /** The storage server registers with the namenode just after it says it serves. */
    private static void awaitLiveServer() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Result report;
        do {
            report = run("bin/creel", "report");
            if (report.exit() == 0 && report.out().contains(" live ")) {
                return;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        throw new AssertionError("no live storage server within 30 s: " + report.out() + report.err());
    }
}
