package io.creel.namenode.persistence;

import static io.creel.namenode.testing.Servers.grantAll;
import static io.creel.namenode.testing.Servers.server;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.ScanReply;
import io.creel.common.protocol.ScanRequest;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.namespace.TableScans;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.MemoryBlocks;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether a Table keeps its keys in order is part of the namespace a restart restores: from the
 * log (an ORDERED record after the Table's CREATED one) and from a checkpoint; its keys scan as
 * before, and an unordered Table stays unordered.
 */
class OrderedTableLogTest {
    static final int BLOCK = 4096;

    @TempDir
    Path dir;
    final MemoryBlocks blocks = new MemoryBlocks();

    /** One namenode run on {@link #dir}. */
    final class Run implements AutoCloseable {
        final ServerRegistry registry = new ServerRegistry(List.of("dram"), BLOCK, 60_000, System::currentTimeMillis);
        final BlockAllocator allocator = new BlockAllocator(List.of("dram"), registry, 0, System::currentTimeMillis);
        final Namespace ns = new Namespace(allocator, blocks, BLOCK, 0, System::currentTimeMillis);
        final NamenodePersistence persistence;
        final TableScans scans = new TableScans(ns, 1 << 20);

        Run() {
            persistence = NamenodePersistence.open(CreelConf.of(Map.of("creel.namenode.log.dir", dir.toString(),
                    "creel.namenode.checkpoint.interval", "1h")), ns, registry, allocator);
            grantAll(allocator, registry.register(server("dram", "dram", "h1", 7001, 256, BLOCK, 11)));
        }

        void table(String path, boolean ordered, boolean enumerable) {
            Expect.done(ns.create(new CreateRequest(path, NodeType.TABLE, "", "", enumerable, null, 0, Expiry.NONE,
                    ordered), "conn"));
        }

        void put(String path, String value) {
            Expect.done(ns.create(new CreateRequest(path, NodeType.KEYVALUE, "", "", true,
                    value.getBytes(StandardCharsets.UTF_8)), "conn"));
        }

        String scan(String table) {
            ScanReply r = scans.scan(new ScanRequest(table, "", false, ScanRequest.MAX_LIMIT));
            StringBuilder b = new StringBuilder();
            for (ScanReply.Entry e : r.entries()) {
                b.append(e.name()).append('=').append(new String(e.data(), StandardCharsets.UTF_8)).append(' ');
            }
            return b.toString().trim();
        }

        @Override
        public void close() {
            persistence.close();
        }
    }

    @Test
    void anOrderedTableIsStillOrderedAfterRestartsFromTheLogAndFromACheckpoint() {
        try (Run r = new Run()) {
            Expect.done(r.ns.create(new CreateRequest("/d", NodeType.DIRECTORY, "", "", true), "conn"));
            r.table("/d/ordered", true, false);
            r.table("/listed", true, true);
            r.table("/plain", false, false);
            for (String k : List.of("m", "c", "x", "a", "q")) {
                r.put("/d/ordered/" + k, "v" + k);
                r.put("/listed/" + k, "w" + k);
                r.put("/plain/" + k, k);
            }
            r.put("/d/ordered/c", "replaced");
            Expect.done(r.ns.remove("/d/ordered/x", false));
            assertEquals("a=va c=replaced m=vm q=vq", r.scan("/d/ordered"));
        }
        // The first restart replays the log; every start writes a checkpoint, which the second restores.
        for (boolean fromCheckpoint : new boolean[] {false, true}) {
            try (Run r = new Run()) {
                assertEquals(fromCheckpoint, r.persistence.recovery().logRecords() == 0,
                        fromCheckpoint ? "restored from the checkpoint alone" : "replayed from the log");
                assertEquals("a=va c=replaced m=vm q=vq", r.scan("/d/ordered"));
                assertEquals("a=wa c=wc m=wm q=wq x=wx", r.scan("/listed"));
                Expect.error(ErrorCode.INVALID_ARGUMENT, () -> r.scan("/plain"), "/plain", "keeps no key order");
            }
        }
        try (Run r = new Run()) {
            r.put("/d/ordered/b", "new");
            assertEquals("a=va b=new c=replaced m=vm q=vq", r.scan("/d/ordered"), "new keys go in order");
        }
    }
}
