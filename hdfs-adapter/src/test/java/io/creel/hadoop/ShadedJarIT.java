package io.creel.hadoop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.minicluster.MiniCluster;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as a Hadoop user meets it: Hadoop's own {@code FsShell} (what {@code hadoop fs}
 * runs), in a separate JVM whose class path is Hadoop's jars plus the shaded jar and nothing else of
 * Creel's, against a running cluster.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ShadedJarIT {
    @Test
    void hadoopFsWorksWithOnlyTheShadedJarAdded(@TempDir Path tmp) throws Exception {
        Path shaded;
        try (Stream<Path> s = Files.list(Path.of("target"))) {
            shaded = s.filter(p -> p.getFileName().toString().matches("creel-hadoop-.*\\.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no shaded jar in target/ (run mvn package first)"));
        }
        // The test class path minus every Creel module and test tool: what remains is Hadoop and its dependencies.
        String hadoopPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.contains("creel-") && !e.endsWith("classes") && !e.contains("junit")
                        && !e.contains("surefire") && !e.contains("failsafe") && !e.contains("netty")
                        && !e.endsWith("-tests.jar"))
                .collect(Collectors.joining(File.pathSeparator));
        // A Hadoop installation puts its configuration directory first on the class path.
        Path confDir = Files.createDirectories(tmp.resolve("hadoop-conf"));
        Files.writeString(confDir.resolve("core-site.xml"), "<?xml version=\"1.0\"?>\n<configuration/>\n");
        String cp = confDir + File.pathSeparator + shaded.toAbsolutePath() + File.pathSeparator + hadoopPath;

        try (MiniCluster cluster = MiniCluster.builder().dram(32L << 20).disk(32L << 20)
                .dramDir(Files.createDirectories(tmp.resolve("dram"))).diskDir(Files.createDirectories(tmp.resolve("disk")))
                .start()) {
            String root = cluster.address().toUri();
            Path hello = tmp.resolve("hello.txt");
            Files.writeString(hello, "hello from hadoop fs\n");
            assertEquals("", fs(cp, tmp, "-mkdir", "-p", root + "/demo").trim());
            assertEquals("", fs(cp, tmp, "-put", hello.toString(), root + "/demo/").trim());
            String ls = fs(cp, tmp, "-ls", root + "/demo");
            assertTrue(ls.contains(root + "/demo/hello.txt") && ls.contains(" 21 "), ls);
            assertEquals("hello from hadoop fs\n", fs(cp, tmp, "-cat", root + "/demo/hello.txt"));
        }
    }

    @Test
    void neitherTheShadedJarNorTheClientLibraryCarriesACommandLineParser() throws IOException {
        Path shaded = jarIn(Path.of("target"), "creel-hadoop-.*\\.jar");
        Path client = jarIn(Path.of("..", "client", "target"), "creel-client-[^-]*(-SNAPSHOT)?\\.jar");
        for (Path jar : List.of(shaded, client)) {
            List<String> entries;
            try (JarFile j = new JarFile(jar.toFile())) {
                entries = j.stream().map(JarEntry::getName).toList();
            }
            assertTrue(entries.stream().anyMatch(e -> e.startsWith("io/creel/client/")), jar + " holds the client");
            List<String> parsers = entries.stream().filter(e -> e.contains("picocli")).toList();
            assertEquals(List.of(), parsers, jar + " must not carry picocli");
        }
    }

    private static Path jarIn(Path dir, String pattern) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches(pattern)).findFirst()
                    .orElseThrow(() -> new AssertionError("no " + pattern + " in " + dir + " (run mvn package first)"));
        }
    }

    /** Runs {@code hadoop fs ARGS} in a fresh JVM; returns its stdout, failing on a non-zero exit. */
    private static String fs(String cp, Path tmp, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", cp, "org.apache.hadoop.fs.FsShell"));
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile(tmp, "fs-", ".out");
        Path err = Files.createTempFile(tmp, "fs-", ".err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("hadoop fs " + String.join(" ", args) + " did not finish in 90 s");
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "hadoop fs " + String.join(" ", args) + " failed: " + stdout
                + readQuietly(err));
        return stdout;
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }
}
