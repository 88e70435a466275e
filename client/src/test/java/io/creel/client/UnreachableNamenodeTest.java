package io.creel.client;

import static io.creel.client.TestData.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A namenode that refuses or never answers: namespace calls fail naming the path and the namenode. */
class UnreachableNamenodeTest {

    private static CreelClient clientOf(int port) {
        return clientOf(port, "3", "10s");
    }

    private static CreelClient clientOf(int port, String attempts, String deadline) {
        return CreelClient.connect(CreelConf.of(Map.of("creel.namenode.address", "creel://127.0.0.1:" + port,
                "creel.client.connect.timeout", "1s", "creel.client.request.timeout", "300ms",
                "creel.client.retry.attempts", attempts, "creel.client.retry.deadline", deadline)));
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort(); // closed again: nobody listens there
        }
    }

    @Test
    void retriesOfARefusedConnectionEndAtTheDeadline() throws Exception {
        int port = closedPort();
        try (CreelClient c = clientOf(port, "1000", "500ms")) {
            long start = System.nanoTime();
            CreelException e = failure(c.create("/jobs/in", NodeType.DIRECTORY));
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
            // Attempts at 0, 0, 100, 300 ms; the next would start at 700 ms, past the deadline.
            assertTrue(e.getMessage().contains("gave up after 4 attempts"), e.getMessage());
            assertTrue(millis < 5000, "took " + millis + " ms");
        }
    }

    @Test
    void aRefusedConnectionIsRetriedAsOftenAsAllowedThenNamesThePathTheNamenodeAndTheAttempts() throws Exception {
        int port = closedPort();
        try (CreelClient c = clientOf(port)) {
            for (CreelException e : new CreelException[] {failure(c.lookup("/jobs/in")),
                    failure(c.create("/jobs/in", NodeType.FILE)), failure(c.delete("/jobs/in", false)),
                    failure(c.move("/jobs/in", "/jobs/out"))}) {
                assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
                assertTrue(e.getMessage().startsWith("/jobs/in: "), e.getMessage());
                assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
                assertTrue(e.getMessage().contains("gave up after 3 attempts"), e.getMessage());
            }
        }
    }

    @Test
    void aNamenodeThatNeverAnswersTimesOutNamingThePathAndTheNamenode() throws Exception {
        // The kernel accepts the connection into the backlog; nothing ever reads or replies.
        try (ServerSocket silent = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             CreelClient c = clientOf(silent.getLocalPort())) {
            CreelException e = failure(c.lookup("/jobs/in"));
            assertEquals(ErrorCode.TIMEOUT, e.code(), e.getMessage());
            assertFalse(e.getMessage().contains("attempts"), "a timeout is not retried: " + e.getMessage());
            assertTrue(e.getMessage().startsWith("/jobs/in: "), e.getMessage());
            assertTrue(e.getMessage().contains("127.0.0.1:" + silent.getLocalPort()), e.getMessage());
        }
    }
}
