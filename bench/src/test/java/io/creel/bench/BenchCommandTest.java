package io.creel.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.cli.CliErrors;
import io.creel.client.CreelClient;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeKeys;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Whole bench runs, short and small: a run that fails half-way and a run that succeeds both
 * leave the namespace as they found it, and a cluster the bench started is gone when it ends.
 */
class BenchCommandTest {
    private MiniCluster cluster;

    /** What one run printed and returned. */
    private record Run(int exitCode, String out, String err) {
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private MiniCluster cluster(long dram) {
        // Replaced values' blocks come back soon, as in the bench's own cluster.
        cluster = MiniCluster.builder().dram(dram).disk(0).servers(1, 0).temporaryDirectories()
                .set(NamenodeKeys.REUSE_DELAY, "100ms").start();
        return cluster;
    }

    private static Run bench(String... args) {
        PrintStream realOut = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        int code;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            picocli.CommandLine cli = CliErrors.configure(new picocli.CommandLine(new BenchCommand()));
            cli.setErr(new PrintWriter(err, true));
            code = cli.execute(args);
        } finally {
            System.setOut(realOut);
        }
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString());
    }

    private String[] existing(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--existing", "--conf", "creel.namenode.address=" + cluster.address().toUri()));
        return all.toArray(String[]::new);
    }

    private List<String> rootOfCluster() {
        try (CreelClient c = CreelClient.connect(cluster.clientConf())) {
            return c.list("/").join().stream().map(e -> e.path()).toList();
        }
    }

    private static String runId(Run run) {
        Matcher m = Pattern.compile("\\| run +\\| ([a-z0-9]{8}):").matcher(run.out());
        assertTrue(m.find(), run.out());
        return m.group(1);
    }

    @Test
    void aRunThatFailsHalfWayRemovesTheNodesItMade() {
        cluster(48L << 20);
        // Twenty 4-byte values fit; a 64 MiB one cannot, in 48 MiB of DRAM and no disk.
        Run run = bench(existing("kv", "--sizes", "4,64m", "--ops", "20", "--repeat", "1", "--duration", "200ms"));
        assertNotEquals(0, run.exitCode(), run.out());
        assertTrue(run.err().contains("creel: "), run.err());
        assertTrue(run.out().contains("the run FAILED"), run.out());
        assertTrue(run.out().contains("| kv "), run.out()); // what was measured before is still printed
        assertEquals(List.of(), rootOfCluster());
    }

    @Test
    void aRunThatSucceedsRemovesItsNodesAndPrintsEveryRepetitionsSpread() {
        cluster(64L << 20);
        Run run = bench(existing("lookup", "create", "--clients", "1,2", "--in-flight", "1,2", "--nodes", "1500",
                "--duration", "100ms", "--repeat", "2"));
        assertEquals(0, run.exitCode(), run.err() + run.out());
        assertTrue(run.out().startsWith("# Creel bench"), run.out());
        assertTrue(run.out().contains("| cluster "), run.out());
        assertTrue(run.out().contains("an existing cluster at " + cluster.address().toUri()), run.out());
        assertTrue(run.out().contains("| load average at start"), run.out());
        assertTrue(run.out().contains("| load average at end"), run.out());
        assertTrue(Pattern.compile("\\| lookup +\\| lookup +\\| 2x 2 in flight nodes=1500 +\\| +2 \\|")
                .matcher(run.out()).find(), run.out());
        assertTrue(run.out().contains("namenode bytes/node: not measured"), run.out());
        assertEquals(List.of(), rootOfCluster());
    }

    @Test
    void aClusterTheBenchStartedIsGoneAfterAFailedRun() {
        Run run = bench("kv", "--sizes", "4,64m", "--ops", "5", "--dram", "16m", "--disk", "0", "--repeat", "1",
                "--duration", "200ms");
        assertNotEquals(0, run.exitCode(), run.out());
        Matcher m = Pattern.compile("its own process \\(pid (\\d+)").matcher(run.out());
        assertTrue(m.find(), run.out());
        long pid = Long.parseLong(m.group(1));
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the cluster still runs");
        assertTrue(ProcessHandle.current().children().noneMatch(ProcessHandle::isAlive), "a child still runs");
    }

    @Test
    void theUserModeMeasuresFreshClientJvmsAgainstCatCpAndASocketAndLeavesNoFiles() {
        cluster(64L << 20);
        Run run = bench(existing("user", "--user-size", "4m", "--repeat", "1"));
        assertEquals(0, run.exitCode(), run.err() + run.out());
        for (String series : List.of("cp into tmpfs", "api put same-host (fresh JVM)", "cat from tmpfs",
                "api get same-host (fresh JVM)", "socket transfer", "api get tcp (fresh JVM)")) {
            assertTrue(run.out().contains("| " + series + " "), series + " missing in:\n" + run.out());
        }
        assertTrue(run.out().contains("2 API (fresh JVM) get 4M same-host vs cat from tmpfs"), run.out());
        assertTrue(run.out().contains("bench/scripts/fs-bulk.sh"), run.out());
        assertFalse(Files.exists(Path.of("/dev/shm", "creel-bench-" + runId(run) + "-user")));
        assertEquals(List.of(), rootOfCluster());
    }

    @Test
    void optionsThatCannotWorkTogetherAreRefusedBeforeAnythingStarts() {
        Run both = bench("lookup", "--local", "--existing");
        assertNotEquals(0, both.exitCode());
        assertTrue(both.err().contains("--local and --existing exclude each other"), both.err());
        Run repeat = bench("lookup", "--repeat", "0");
        assertNotEquals(0, repeat.exitCode());
        assertTrue(repeat.err().contains("--repeat: 0"), repeat.err());
        Run mode = bench("lookups");
        assertTrue(mode.err().contains("unknown bench mode 'lookups'"), mode.err());
        Run opts = bench("lookup", "--local", "--cluster-jvm-opts", "-Xmx1g");
        assertTrue(opts.err().contains("--cluster-jvm-opts"), opts.err());
        assertEquals("", both.out() + repeat.out() + mode.out() + opts.out());
    }
}
