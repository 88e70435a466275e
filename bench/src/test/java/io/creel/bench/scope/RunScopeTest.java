package io.creel.bench.scope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunScopeTest {
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);

    @Test
    void everythingIsUndoneNewestFirstAndOnlyOnce() {
        List<String> undone = new ArrayList<>();
        RunScope scope = new RunScope(errStream);
        scope.add("the cluster", () -> undone.add("cluster"));
        scope.add("the clients", () -> undone.add("clients"));
        scope.add("the nodes", () -> undone.add("nodes"));
        assertEquals(List.of(), scope.closeAndReport());
        assertEquals(List.of("nodes", "clients", "cluster"), undone);
        scope.close();
        assertEquals(3, undone.size());
    }

    @Test
    void oneFailingUndoIsReportedAndTheOthersStillRun() {
        List<String> undone = new ArrayList<>();
        RunScope scope = new RunScope(errStream);
        scope.add("the cluster", () -> undone.add("cluster"));
        scope.add("the nodes", () -> {
            throw new IllegalStateException("namenode unreachable");
        });
        scope.add("the files", () -> undone.add("files"));
        List<String> failures = scope.closeAndReport();
        assertEquals(List.of("files", "cluster"), undone);
        assertEquals(List.of("cleaning up the nodes failed: namenode unreachable"), failures);
    }

    @Test
    void closeWarnsAboutFailures() {
        RunScope scope = new RunScope(errStream);
        scope.add("the Redis server", () -> {
            throw new IllegalStateException("still running");
        });
        scope.close();
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("cleaning up the Redis server failed: still running"));
    }

    @Test
    void nothingCanJoinARunThatIsOver() {
        RunScope scope = new RunScope(errStream);
        scope.close();
        assertThrows(IllegalStateException.class, () -> scope.add("late", () -> { }));
    }
}
