package io.creel.namenode.persistence;

import static io.creel.namenode.testing.Servers.grantAll;
import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.creel.common.conf.CreelConf;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.CredentialRecord;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.NodeAccess;
import io.creel.common.security.Identity;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.namespace.Ownership;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import io.creel.namenode.testing.MemoryBlocks;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Owners, modes and credentials across namenode restarts, from the log and from a checkpoint; a
 * namespace without ownership stamps and logs nothing, and its nodes read as {@link Ownership#UNSTAMPED}
 * once ownership is turned on.
 */
class OwnershipLogTest {
    static final int BLOCK = 4096;

    @TempDir
    Path dir;
    final MemoryBlocks blocks = new MemoryBlocks();
    final ManualClock clock = new ManualClock();

    final class Run implements AutoCloseable {
        final ServerRegistry registry = new ServerRegistry(List.of("dram"), BLOCK, 60_000, clock);
        final BlockAllocator allocator = new BlockAllocator(List.of("dram"), registry, 0, clock);
        final Namespace ns = new Namespace(allocator, blocks, BLOCK, 0, clock);
        final NamenodePersistence persistence;

        Run(boolean enforced) {
            if (enforced) {
                ns.ownership().enforce(027);
            }
            persistence = NamenodePersistence.open(CreelConf.of(Map.of("creel.namenode.log.dir", dir.toString(),
                    "creel.namenode.checkpoint.interval", "1h")), ns, registry, allocator);
            grantAll(allocator, registry.register(server("dram", "dram", "h1", 7001, 256, BLOCK, 11)));
        }

        void create(String who, String path, NodeType type) {
            Expect.done(ns.ownership().as(Identity.named(who, "0".repeat(32)), () -> ns.create(new CreateRequest(path,
                    type, "", "", true, null, Expiry.NONE), "conn")));
        }

        NodeAccess access(String path) {
            return ns.lookup(path, false, "conn").node().access();
        }

        @Override
        public void close() {
            persistence.close();
        }
    }

    @Test
    void ownersModesAndCredentialsComeBackFromTheLogAndFromACheckpoint() throws Exception {
        try (Run r = new Run(true)) {
            Expect.done(r.ns.ownership().set("/", "", "", 0775));
            r.create("alice", "/a", NodeType.DIRECTORY);
            assertEquals(new NodeAccess("alice", Identity.SUPERUSER, 0750), r.access("/a"),
                    "the root's 0775 less the umask 027");
            Expect.done(r.ns.ownership().set("/a", "", "eng", 0770));
            r.create("bob", "/a/t", NodeType.TABLE);
            r.create("bob", "/a/f", NodeType.FILE);
            assertEquals(new NodeAccess("bob", "eng", 0750), r.access("/a/t"));
            assertEquals(new NodeAccess("bob", "eng", 0640), r.access("/a/f"), "no execute bit on data");
            Expect.done(r.ns.ownership().putCredential(new CredentialRecord("alice", "a".repeat(32), List.of("eng"), 5)));
            Expect.done(r.ns.ownership().putCredential(new CredentialRecord("bob", "b".repeat(32), List.of(), 6)));
            Expect.done(r.ns.ownership().putCredential(new CredentialRecord("bob", "c".repeat(32), List.of("x"), 7)));
            Expect.done(r.ns.ownership().putCredential(new CredentialRecord("carol", "d".repeat(32), List.of(), 8)));
            Expect.done(r.ns.ownership().revoke("carol"));
        }
        for (boolean fromCheckpoint : new boolean[] {false, true}) {
            try (Run r = new Run(true)) {
                assertEquals(fromCheckpoint, r.persistence.recovery().logRecords() == 0);
                assertEquals(new NodeAccess(Identity.SUPERUSER, Identity.SUPERUSER, 0775), r.access("/"));
                assertEquals(new NodeAccess("alice", "eng", 0770), r.access("/a"));
                assertEquals(new NodeAccess("bob", "eng", 0750), r.access("/a/t"));
                assertEquals(new NodeAccess("bob", "eng", 0640), r.access("/a/f"));
                assertEquals(List.of(new CredentialRecord("alice", "a".repeat(32), List.of("eng"), 5),
                        new CredentialRecord("bob", "c".repeat(32), List.of("x"), 7)), r.ns.ownership().credentials());
                assertNull(r.ns.ownership().credential("carol"));
                if (!fromCheckpoint) {
                    r.persistence.checkpoint();
                }
            }
        }
    }

    @Test
    void withoutOwnershipNothingIsStampedAndOldNodesReadAsTheSuperusersWithEveryBit() {
        try (Run r = new Run(false)) {
            r.create("alice", "/old", NodeType.DIRECTORY);
            assertNull(r.access("/old"), "ownership off: nodes describe no access");
        }
        try (Run r = new Run(true)) {
            assertEquals(Ownership.UNSTAMPED, r.access("/old"));
            r.create("alice", "/old/new", NodeType.FILE);
            assertEquals(new NodeAccess("alice", Identity.SUPERUSER, 0750 & 0666 | 0600), r.access("/old/new"));
        }
    }
}
