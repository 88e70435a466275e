package io.creel.spark.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.spark.common.CreelTestCluster;
import java.io.File;
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

/**
 * The shaded jar as a Spark user meets it: a Spark job in a separate JVM whose class path is
 * Spark's jars plus {@code creel-spark-<version>.jar} and nothing else of Creel's, using the
 * shuffle (spark-shuffle) and the broadcasts (spark-broadcast) from that one jar.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ShadedJarIT {
    private static Path shadedJar() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("target"))) {
            return s.filter(p -> p.getFileName().toString().matches("creel-spark-[0-9].*\\.jar")).findFirst()
                    .orElseThrow(() -> new AssertionError("no shaded jar in target/ (run mvn package first)"))
                    .toAbsolutePath();
        }
    }

    @Test
    void theShadedJarCarriesRelocatedNettyAndTheTransports() throws Exception {
        try (JarFile jar = new JarFile(shadedJar().toFile())) {
            assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("io/netty/")), "unrelocated Netty");
            assertTrue(jar.stream().anyMatch(e -> e.getName().startsWith("io/creel/shaded/io/netty/")));
            for (String plugin : List.of("io/creel/spark/shuffle/CreelShuffleManager.class",
                    "io/creel/spark/broadcast/CreelBroadcastPlugin.class",
                    "io/creel/spark/broadcast/sql/CreelSqlExtensions.class",
                    "io/creel/spark/common/SparkCreelConf.class")) {
                assertNotNull(jar.getJarEntry(plugin), "the one jar carries both plugins: " + plugin);
            }
            assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("org/apache/spark/") && !e.isDirectory()),
                    "no Spark classes");
            JarEntry entry = jar.getJarEntry("META-INF/services/io.creel.storage.spi.BlockTransportProvider");
            assertNotNull(entry, "the jar lists the block transports it carries");
            String services = new String(jar.getInputStream(entry).readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(services.contains("io.creel.storage.tcp."), services);
        }
    }

    @Test
    void aSparkJobRunsWithOnlyTheShadedJarAdded(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        Path shaded = shadedJar();
        String testClasses = Path.of("target", "test-classes").toAbsolutePath().toString();
        // The test class path minus every Creel module and test tool: Spark, Scala and their dependencies.
        String sparkPath = Stream.of(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> !e.contains("creel-") && !e.endsWith("classes") && !e.contains("junit")
                        && !e.contains("surefire") && !e.contains("failsafe") && !e.contains("opentest4j")
                        && !e.contains("slf4j-simple"))
                .collect(Collectors.joining(File.pathSeparator));
        String cp = shaded + File.pathSeparator + testClasses + File.pathSeparator + sparkPath;
        try (CreelTestCluster creel = CreelTestCluster.start(64L << 20, 64L << 20)) {
            List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx1g"));
            for (String pkg : List.of("java.lang", "java.lang.invoke", "java.lang.reflect", "java.io", "java.net",
                    "java.nio", "java.util", "java.util.concurrent", "java.util.concurrent.atomic", "sun.nio.ch",
                    "sun.nio.cs", "sun.security.action", "sun.util.calendar", "jdk.internal.ref")) {
                cmd.add("--add-opens=java.base/" + pkg + "=ALL-UNNAMED");
            }
            cmd.addAll(List.of("-cp", cp, ShadedJarJob.class.getName(), creel.address()));
            Path out = tmp.resolve("out");
            Path err = tmp.resolve("err");
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new AssertionError("the Spark job did not finish in 180 s: " + Files.readString(err));
            }
            String stdout = Files.readString(out);
            assertEquals(0, p.exitValue(), () -> "the job failed: " + stdout + readQuietly(err));
            assertTrue(stdout.contains("rdd [(0,16668333), (1,16661667), (2,16665000)]"), stdout);
            assertTrue(stdout.contains("sql [[0,3334], [1,3333], [2,3333]]"), stdout);
            assertTrue(stdout.contains("manager io.creel.spark.shuffle.CreelShuffleManager from file:" + shaded),
                    stdout);
            assertTrue(stdout.contains("broadcast 328350 from file:" + shaded), stdout);
            assertTrue(stdout.contains("join [[10]] stored 1"), stdout);
        }
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (java.io.IOException e) {
            return "(stderr unreadable: " + e + ")";
        }
    }
}
