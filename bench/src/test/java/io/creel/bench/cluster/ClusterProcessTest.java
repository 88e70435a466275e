package io.creel.bench.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.bench.process.JavaCommand;
import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bench's side of its cluster process: with scripted children for every way a start or stop
 * can go, and with the real {@link ClusterProcessMain}.
 */
class ClusterProcessTest {
    private static final Duration START = Duration.ofMinutes(2);
    private static final Duration QUICK_STOP = Duration.ofSeconds(2);
    /** A child that speaks the protocol like the real one. */
    private static final String POLITE = "echo \"READY creel://127.0.0.1:1 $$\"; "
            + "while read l; do case $l in memory) echo 'MEMORY 100 5';; stop) break;; esac; done; echo STOPPED";

    @TempDir
    Path tmp;

    private List<Path> dirs() throws Exception {
        List<Path> dirs = new ArrayList<>();
        dirs.add(Files.createDirectory(tmp.resolve("dram")));
        dirs.add(Files.createDirectory(tmp.resolve("disk")));
        Files.writeString(dirs.get(0).resolve("region-0"), "data");
        return dirs;
    }

    private ClusterProcess start(String script, List<Path> dirs, Duration startTimeout) {
        return ClusterProcess.start(List.of("sh", "-c", script), dirs, tmp.resolve("cluster.log"),
                Map.of("creel.client.request.timeout", "7s"), startTimeout, QUICK_STOP, List.of());
    }

    private static void assertGone(long pid) {
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " still runs");
    }

    @Test
    void aStartedClusterGivesItsAddressAnswersForItsMemoryAndStopsWhenClosed() throws Exception {
        List<Path> dirs = dirs();
        ClusterProcess c = start(POLITE, dirs, START);
        assertEquals("creel://127.0.0.1:1", c.clientConf().get(ConfKeys.NAMENODE_ADDRESS).get(0).toUri());
        assertEquals(Duration.ofSeconds(7), c.clientConf().get(ConfKeys.CLIENT_REQUEST_TIMEOUT));
        assertEquals(new MemoryUse(100, 5), c.namenodeMemory().orElseThrow());
        assertTrue(c.description().contains("pid " + c.pid()), c.description());
        c.close();
        assertFalse(c.isAlive());
        assertGone(c.pid());
        dirs.forEach(d -> assertFalse(Files.exists(d), d + " was left behind"));
        c.close(); // a second close is harmless
        CreelException e = assertThrows(CreelException.class, c::namenodeMemory);
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
    }

    @Test
    void aChildThatReportsAnErrorFailsTheStartWithItsWordsAndLeavesNothing() throws Exception {
        List<Path> dirs = dirs();
        CreelException e = assertThrows(CreelException.class, () -> start(
                "echo 'stack trace line' >&2; echo 'ERROR the cluster did not start: no space left'; exit 1", dirs,
                START));
        assertTrue(e.getMessage().contains("no space left"), e.getMessage());
        assertTrue(e.getMessage().contains("stack trace line"), e.getMessage()); // the log's end is quoted
        dirs.forEach(d -> assertFalse(Files.exists(d), d + " was left behind"));
    }

    @Test
    void aChildThatDiesSilentlyFailsTheStartNamingItsExitCode() throws Exception {
        List<Path> dirs = dirs();
        CreelException e = assertThrows(CreelException.class, () -> start("echo boom >&2; exit 3", dirs, START));
        assertTrue(e.getMessage().contains("exit code 3"), e.getMessage());
        assertTrue(e.getMessage().contains("boom"), e.getMessage());
        dirs.forEach(d -> assertFalse(Files.exists(d), d + " was left behind"));
    }

    @Test
    void aChildThatNeverGetsReadyIsStoppedWhenTheStartTimesOut() throws Exception {
        List<Path> dirs = dirs();
        Path pid = tmp.resolve("pid");
        CreelException e = assertThrows(CreelException.class, () -> start("echo $$ > " + pid + "; exec sleep 600",
                dirs, Duration.ofSeconds(3)));
        assertEquals(ErrorCode.TIMEOUT, e.code());
        assertGone(Long.parseLong(Files.readString(pid).trim()));
        dirs.forEach(d -> assertFalse(Files.exists(d), d + " was left behind"));
    }

    @Test
    void linesBeforeReadyArePassedOverAsAJvmAgentPrintsThem() throws Exception {
        ClusterProcess c = start("echo 'Profiling started'; " + POLITE, dirs(), START);
        try {
            assertEquals("creel://127.0.0.1:1", c.clientConf().explicitSettings().get("creel.namenode.address"));
        } finally {
            c.close();
        }
    }

    @Test
    void aChildThatSaysOnlySomethingElseThanReadyIsStoppedWhenTheStartTimesOut() throws Exception {
        List<Path> dirs = dirs();
        CreelException e = assertThrows(CreelException.class, () -> start("echo hello; cat > /dev/null", dirs,
                Duration.ofSeconds(2)));
        assertEquals(ErrorCode.TIMEOUT, e.code(), e.getMessage());
        dirs.forEach(d -> assertFalse(Files.exists(d), d + " was left behind"));
    }

    @Test
    void aChildThatIgnoresStopAndSigtermIsKilled() throws Exception {
        List<Path> dirs = dirs();
        ClusterProcess c = start("trap '' TERM; echo \"READY creel://127.0.0.1:1 $$\"; "
                + "exec 0</dev/null; while true; do sleep 0.2; done", dirs, START);
        c.close();
        assertGone(c.pid());
        dirs.forEach(d -> assertFalse(Files.exists(d), d + " was left behind"));
    }

    @Test
    void aGarbledMemoryAnswerIsAnErrorQuotingIt() throws Exception {
        ClusterProcess c = start("echo \"READY creel://127.0.0.1:1 $$\"; read l; echo 'MEMORY lots'; cat > /dev/null",
                dirs(), START);
        try {
            CreelException e = assertThrows(CreelException.class, c::namenodeMemory);
            assertTrue(e.getMessage().contains("MEMORY lots"), e.getMessage());
        } finally {
            c.close();
        }
    }

    @Test
    void theRealClusterProcessServesClientsReportsItsHeapAndCleansUp() {
        ClusterProcess c = ClusterProcess.start(new ClusterProcess.Spec(32L << 20, 0, Map.of(), List.of("-Xmx256m")),
                START);
        List<Path> dirs = c.directories();
        try {
            assertTrue(c.description().contains("-Xmx256m"), c.description());
            try (CreelClient client = CreelClient.connect(c.clientConf())) {
                client.create("/made-by-a-client", NodeType.DIRECTORY).join();
                assertEquals(NodeType.DIRECTORY, client.lookup("/made-by-a-client").join().type());
            }
            MemoryUse m = c.namenodeMemory().orElseThrow();
            assertTrue(m.heapBytes() > 0 && m.heapBytes() < 256L << 20, m.toString());
        } finally {
            c.close();
        }
        assertFalse(c.isAlive());
        dirs.forEach(d -> assertFalse(Files.exists(d), d + " was left behind"));
    }

    @Test
    void theRealClusterProcessRefusesBadArgumentsByName() {
        CreelException e = assertThrows(CreelException.class, () -> ClusterProcess.start(
                JavaCommand.of(ClusterProcessMain.class, List.of("-Xmx128m"), List.of("--dram", "lots")), List.of(),
                tmp.resolve("cluster.log"), Map.of(), START, QUICK_STOP, List.of()));
        assertTrue(e.getMessage().contains("bad arguments: --dram 'lots' is not a number of bytes"), e.getMessage());
    }

    @Test
    void theRealClusterProcessStopsAndCleansUpWhenTheBenchGoesAway() throws Exception {
        Path dram = Files.createDirectory(tmp.resolve("dram"));
        Path disk = Files.createDirectory(tmp.resolve("disk"));
        Process p = new ProcessBuilder(JavaCommand.of(ClusterProcessMain.class, List.of("-Xmx256m"), List.of(
                "--dram", Long.toString(16L << 20), "--disk", "0", "--dram-dir", dram.toString(), "--disk-dir",
                disk.toString(), "--remove-at-exit", dram.toString(), "--remove-at-exit", disk.toString())))
                .redirectError(tmp.resolve("cluster.log").toFile()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String ready = out.readLine();
            assertTrue(ready != null && ready.startsWith("READY creel://127.0.0.1:"), String.valueOf(ready));
            p.getOutputStream().close(); // what the kernel does to the pipe when the bench dies, even by SIGKILL
            assertTrue(p.waitFor(2, TimeUnit.MINUTES), "the cluster still runs after its input closed");
            assertEquals(0, p.exitValue());
            assertEquals(ControlLine.STOPPED, out.readLine());
            assertFalse(Files.exists(dram));
            assertFalse(Files.exists(disk));
        } finally {
            p.destroyForcibly();
        }
    }
}
