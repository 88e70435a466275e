package io.creel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.Expiry;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The client's side of expiring nodes: it heartbeats only once it owns one (or was asked for its
 * session id), on every partition where it does, stops when closed, and refuses what a live owner
 * could not keep or hand over.
 */
class SessionHeartbeatsTest {
    private final FakeCluster cluster = new FakeCluster(2);

    SessionHeartbeatsTest() {
        cluster.settings().put("creel.client.session.heartbeat", "50ms");
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static int beats(FakeCluster c, int partition) {
        return c.namenodes.get(partition).sessionBeats.get();
    }

    private static void awaitBeats(FakeCluster c, int partition, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (beats(c, partition) < atLeast) {
            assertTrue(System.nanoTime() < deadline, "partition " + partition + " heard " + beats(c, partition)
                    + " beats, not " + atLeast);
            Thread.sleep(10);
        }
    }

    /** A top-level name on {@code partition} of 2. */
    private static String nameOn(int partition) {
        for (int i = 0; ; i++) {
            if (io.creel.common.namespace.StableHash.partition("d" + i, 2) == partition) {
                return "/d" + i;
            }
        }
    }

    @Test
    void aClientBeatsWhereItOwnsExpiringNodesAndStopsWhenClosed() throws Exception {
        CreelClient c = cluster.client();
        c.create(nameOn(1), NodeType.DIRECTORY).join();
        Thread.sleep(200);
        assertEquals(0, beats(cluster, 0) + beats(cluster, 1), "no expiring node: no heartbeat");

        c.create(nameOn(0), NodeType.DIRECTORY, CreateOptions.defaults().withExpiry(Expiry.session())).join();
        awaitBeats(cluster, 0, 3);
        Thread.sleep(200);
        assertEquals(0, beats(cluster, 1), "only the partition where it owns a node hears it");
        String owner = c.lookup(nameOn(0)).join().info().expiry().owner();
        assertEquals(c.sessionId(), owner, "the node is owned by this client's session");
        awaitBeats(cluster, 1, 3); // sessionId() starts the beats everywhere: nodes may be handed over on any

        c.close();
        Thread.sleep(100);
        int after = beats(cluster, 0);
        Thread.sleep(300);
        assertEquals(after, beats(cluster, 0), "a closed client no longer beats");
    }

    @Test
    void expiriesALiveOwnerCouldNotKeepAndBadHandOversAreRefused() {
        CreelClient c = cluster.client();
        CreelException tooShort = CreelException.unwrap(assertThrows(CompletionException.class, () -> c.create("/t",
                NodeType.DIRECTORY, CreateOptions.defaults().withExpiry(Expiry.timeToLive(Duration.ofMillis(60))))
                .join()));
        assertEquals(ErrorCode.INVALID_ARGUMENT, tooShort.code());
        assertTrue(tooShort.getMessage().contains("shorter than two of this client's heartbeats"), tooShort.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Expiry.timeToLive(Duration.ofSeconds(-1)));

        CreelException badSession = CreelException.unwrap(assertThrows(CompletionException.class,
                () -> c.handOver("/t", "nobody", Expiry.session()).join()));
        assertEquals(ErrorCode.INVALID_ARGUMENT, badSession.code());
        assertTrue(badSession.getMessage().contains("32 hex digits"), badSession.getMessage());
    }
}
