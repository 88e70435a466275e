package io.creel.namenode.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.RequestIdentity;
import io.netty.channel.Channel;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Who owns a write lease: a connection, for a client that gives no identity; the client itself for
 * one that does — kept across its connections, and ended only once it has been away for the hold.
 */
class ClientSessionsTest {
    private static final long HOLD = 10_000;
    private final List<Object> ended = new ArrayList<>();
    private final ClientSessions sessions = new ClientSessions(HOLD, ended::add);
    private final RequestIdentity client = RequestIdentity.newClient();

    /** The owners whose leases ended that are clients, not connections. */
    private List<Object> clientsEnded() {
        return ended.stream().filter(o -> !(o instanceof Channel)).toList();
    }

    /** A connection whose clock moves only when the test says so. */
    private static EmbeddedChannel channel() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.freezeTime();
        return ch;
    }

    private static void pass(EmbeddedChannel ch, long millis) {
        ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        ch.runScheduledPendingTasks();
    }

    @Test
    void withoutAnIdentityTheConnectionOwnsItsLeasesAndTheyEndWithIt() {
        EmbeddedChannel ch = channel();
        assertSame(ch, sessions.owner(ch, null));
        ch.close();
        sessions.connectionClosed(ch);
        assertEquals(List.of(ch), ended);
        assertEquals(0, sessions.size());
    }

    @Test
    void anIdentifiedClientOwnsItsLeasesOnEveryConnection() {
        EmbeddedChannel a = channel();
        EmbeddedChannel b = channel();
        Object owner = sessions.owner(a, client.withSequence(1));
        assertSame(owner, sessions.owner(b, client.withSequence(2)));
        Object other = sessions.owner(a, RequestIdentity.newClient().withSequence(1));
        assertNotSame(owner, other, "another client");
        a.close();
        sessions.connectionClosed(a);
        pass(a, 2 * HOLD);
        assertEquals(List.of(other), clientsEnded(), "only the client whose one connection closed");
        a.finishAndReleaseAll();
        b.finishAndReleaseAll();
    }

    @Test
    void aClientThatIsAwayLongerThanTheHoldLosesItsLeasesOnce() {
        EmbeddedChannel ch = channel();
        Object owner = sessions.owner(ch, client.withSequence(1));
        ch.close();
        sessions.connectionClosed(ch);
        pass(ch, HOLD - 1);
        assertTrue(clientsEnded().isEmpty(), "ended before the hold: " + ended);
        pass(ch, 1);
        assertEquals(List.of(owner), clientsEnded());
        pass(ch, 2 * HOLD);
        assertEquals(1, clientsEnded().size());
        assertEquals(0, sessions.size());
    }

    @Test
    void aClientThatComesBackWithinTheHoldKeepsItsLeases() {
        EmbeddedChannel first = channel();
        Object owner = sessions.owner(first, client.withSequence(1));
        first.close();
        sessions.connectionClosed(first);
        pass(first, HOLD / 2);
        EmbeddedChannel second = channel();
        assertSame(owner, sessions.owner(second, client.withSequence(1)), "its retry on a new connection");
        pass(first, 2 * HOLD);
        assertTrue(clientsEnded().isEmpty(), "a client that came back lost its leases: " + ended);
        second.close();
        sessions.connectionClosed(second);
        pass(second, HOLD);
        assertEquals(List.of(owner), clientsEnded());
    }

    @Test
    void aRequestThatArrivesOnAConnectionAlreadyGoneStartsTheHold() {
        EmbeddedChannel ch = channel();
        ch.close();
        sessions.connectionClosed(ch);
        Object owner = sessions.owner(ch, client.withSequence(1));
        pass(ch, HOLD);
        assertEquals(List.of(owner), clientsEnded());
    }
}
