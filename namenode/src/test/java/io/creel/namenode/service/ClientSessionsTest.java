package io.creel.namenode.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.RequestIdentity;
import io.creel.common.rpc.RpcPeer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledFuture;
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
        return ended.stream().filter(o -> !(o instanceof RpcPeer)).toList();
    }

    /** A connection whose clock moves only when the test says so (an embedded channel's frozen one). */
    private static final class Connection implements RpcPeer {
        private final EmbeddedChannel ch = new EmbeddedChannel();

        Connection() {
            ch.freezeTime();
        }

        void close() {
            ch.close();
        }

        void finishAndReleaseAll() {
            ch.finishAndReleaseAll();
        }

        @Override
        public String remote() {
            return "test";
        }

        @Override
        public ByteBufAllocator alloc() {
            return ch.alloc();
        }

        @Override
        public boolean isOpen() {
            return ch.isActive();
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
            return ch.eventLoop().schedule(task, delay, unit);
        }

        @Override
        public void send(ByteBuf frame) {
            frame.release();
            throw new AssertionError("lease owners send nothing");
        }
    }

    private static Connection channel() {
        return new Connection();
    }

    private static void pass(Connection c, long millis) {
        c.ch.advanceTimeBy(millis, TimeUnit.MILLISECONDS);
        c.ch.runScheduledPendingTasks();
    }

    @Test
    void withoutAnIdentityTheConnectionOwnsItsLeasesAndTheyEndWithIt() {
        Connection ch = channel();
        assertSame(ch, sessions.owner(ch, null));
        ch.close();
        sessions.connectionClosed(ch);
        assertEquals(List.of(ch), ended);
        assertEquals(0, sessions.size());
    }

    @Test
    void anIdentifiedClientOwnsItsLeasesOnEveryConnection() {
        Connection a = channel();
        Connection b = channel();
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
        Connection ch = channel();
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
        Connection first = channel();
        Object owner = sessions.owner(first, client.withSequence(1));
        first.close();
        sessions.connectionClosed(first);
        pass(first, HOLD / 2);
        Connection second = channel();
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
        Connection ch = channel();
        ch.close();
        sessions.connectionClosed(ch);
        Object owner = sessions.owner(ch, client.withSequence(1));
        pass(ch, HOLD);
        assertEquals(List.of(owner), clientsEnded());
    }
}
