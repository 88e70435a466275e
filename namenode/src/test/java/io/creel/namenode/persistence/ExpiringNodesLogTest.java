package io.creel.namenode.persistence;

import static io.creel.namenode.testing.Servers.grantAll;
import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.NodeExpiry;
import io.creel.common.protocol.RequestIdentity;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import io.creel.namenode.testing.MemoryBlocks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Expiring nodes across namenode restarts: owners and graces come back from the log and from a
 * checkpoint, hand-overs too, and every owner gets a whole timeout from the restart on (heartbeats
 * are not logged), so a restart never removes a live client's nodes.
 */
class ExpiringNodesLogTest {
    static final int BLOCK = 4096;
    static final long TIMEOUT = 30_000;

    @TempDir
    Path dir;
    final MemoryBlocks blocks = new MemoryBlocks();
    final ManualClock clock = new ManualClock();
    final RequestIdentity alice = RequestIdentity.newClient();
    final RequestIdentity bob = RequestIdentity.newClient();

    /** One namenode run on {@link #dir}, on the shared manual clock. */
    final class Run implements AutoCloseable {
        final ServerRegistry registry = new ServerRegistry(List.of("dram"), BLOCK, 60_000, clock);
        final BlockAllocator allocator = new BlockAllocator(List.of("dram"), registry, 0, clock);
        final Namespace ns = new Namespace(allocator, blocks, BLOCK, 0, clock);
        final NamenodePersistence persistence;

        Run() {
            ns.setSessionTimeout(TIMEOUT);
            persistence = NamenodePersistence.open(CreelConf.of(Map.of("creel.namenode.log.dir", dir.toString(),
                    "creel.namenode.checkpoint.interval", "1h")), ns, registry, allocator);
            grantAll(allocator, registry.register(server("dram", "dram", "h1", 7001, 256, BLOCK, 11)));
        }

        void create(String path, Expiry expiry, RequestIdentity who, long seq) {
            Expect.done(ns.create(new CreateRequest(path, NodeType.DIRECTORY, "", "", true, null, expiry), "conn",
                    who.withSequence(seq)));
        }

        NodeExpiry expiry(String path) {
            return ns.lookup(path, false, "conn").node().expiry();
        }

        @Override
        public void close() {
            persistence.close();
        }
    }

    @Test
    void ownersComeBackFromTheLogAndACheckpointWithAWholeTimeoutFromTheRestart() throws Exception {
        try (Run r = new Run()) {
            r.create("/session", Expiry.SESSION, alice, 1);
            r.create("/ttl", Expiry.timeToLive(Duration.ofMinutes(2)), alice, 2);
            r.create("/handed", Expiry.SESSION, alice, 3);
            r.create("/permanent", Expiry.SESSION, alice, 4);
            Expect.done(r.ns.handOver("/handed", bob.clientText(), Expiry.timeToLive(Duration.ofMinutes(1)),
                    alice.withSequence(5)));
            Expect.done(r.ns.handOver("/permanent", "", Expiry.NONE, alice.withSequence(6)));
            r.create("/gone", Expiry.SESSION, bob, 7);
            Expect.done(r.ns.remove("/gone", true));
        }
        clock.advance(TIMEOUT - 1_000); // the namenode was down for most of a timeout
        for (boolean fromCheckpoint : new boolean[] {false, true}) {
            try (Run r = new Run()) {
                assertEquals(fromCheckpoint, r.persistence.recovery().logRecords() == 0,
                        fromCheckpoint ? "restored from the checkpoint alone" : "replayed from the log");
                NodeExpiry s = r.expiry("/session");
                assertEquals(alice.clientText(), s.owner());
                assertEquals(TIMEOUT, s.graceMillis());
                assertEquals(0, s.silentMillis(), "a restart counts as hearing every owner");
                assertEquals(Duration.ofMinutes(2).toMillis(), r.expiry("/ttl").graceMillis());
                assertEquals(bob.clientText(), r.expiry("/handed").owner());
                assertEquals(Duration.ofMinutes(1).toMillis(), r.expiry("/handed").graceMillis());
                assertNull(r.expiry("/permanent"));
                assertThrows(CreelException.class, () -> r.expiry("/gone"));

                clock.advance(TIMEOUT - 1_000);
                r.ns.renewOwner(bob.clientHigh(), bob.clientLow());
                assertEquals(0, r.ns.expireDue(), "no owner loses a node to the restart itself");
                clock.advance(2_000);
                assertEquals(1, r.ns.expireDue(), "the silent session owner's node goes a timeout after the restart");
                assertThrows(CreelException.class, () -> r.expiry("/session"));
                if (!fromCheckpoint) {
                    // Put it back for the next run, which restores everything from this checkpoint.
                    r.create("/session", Expiry.SESSION, alice, 8);
                    r.persistence.checkpoint();
                }
            }
        }
    }
}
