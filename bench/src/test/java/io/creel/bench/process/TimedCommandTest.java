package io.creel.bench.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TimedCommandTest {
    private static final Duration LONG = Duration.ofSeconds(60);

    @Test
    void aCommandThatSucceedsGivesItsTimeAndOutput() {
        TimedCommand.Result r = TimedCommand.run(List.of("sh", "-c", "echo out; echo err >&2"), Map.of(), false, LONG);
        assertTrue(r.nanos() > 0);
        assertTrue(r.output().contains("out"), r.output());
        assertTrue(r.output().contains("err"), r.output());
    }

    @Test
    void discardedStandardOutputIsNotKept() {
        TimedCommand.Result r = TimedCommand.run(List.of("sh", "-c", "echo lots"), Map.of(), true, LONG);
        assertEquals("(nothing)", r.output());
    }

    @Test
    void theEnvironmentCanBeChangedAndCleared() {
        Map<String, String> env = new HashMap<>();
        env.put("BENCH_TEST_SET", "yes");
        env.put("HOME", null);
        TimedCommand.Result r = TimedCommand.run(List.of("sh", "-c", "echo \"set=$BENCH_TEST_SET home=${HOME:-none}\""),
                env, false, LONG);
        assertEquals("set=yes home=none", r.output());
    }

    @Test
    void aFailingCommandIsAnErrorNamingItWithItsExitCodeAndOutput() {
        CreelException e = assertThrows(CreelException.class, () -> TimedCommand.run(
                List.of("sh", "-c", "echo no such file >&2; exit 3"), Map.of(), false, LONG));
        assertTrue(e.getMessage().contains("'sh -c"), e.getMessage());
        assertTrue(e.getMessage().contains("exit code 3"), e.getMessage());
        assertTrue(e.getMessage().contains("no such file"), e.getMessage());
    }

    @Test
    void aCommandThatDoesNotExistIsAnErrorNamingIt() {
        CreelException e = assertThrows(CreelException.class, () -> TimedCommand.run(
                List.of("/nonexistent/creel-bench-no-such-command"), Map.of(), false, LONG));
        assertTrue(e.getMessage().contains("creel-bench-no-such-command"), e.getMessage());
    }

    @Test
    void aCommandThatOutlivesItsTimeoutIsKilledAndReported(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("pid");
        CreelException e = assertThrows(CreelException.class, () -> TimedCommand.run(
                List.of("sh", "-c", "echo $$ > " + pidFile + "; exec sleep 600"), Map.of(), false,
                Duration.ofSeconds(3)));
        assertEquals(ErrorCode.TIMEOUT, e.code());
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "the command still runs");
    }

    @Test
    void aLongClassPathIsAbridgedInDescriptions() {
        assertEquals("'java -cp <class path> Main'", TimedCommand.describe(List.of("java", "-cp", "x".repeat(100),
                "Main")));
        assertEquals("'java -cp a.jar Main'", TimedCommand.describe(List.of("java", "-cp", "a.jar", "Main")));
    }
}
