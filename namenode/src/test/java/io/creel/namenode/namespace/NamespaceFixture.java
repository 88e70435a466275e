package io.creel.namenode.namespace;

import static io.creel.namenode.testing.Servers.server;

import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.ManualClock;
import io.creel.namenode.testing.MemoryBlocks;
import java.util.ArrayList;
import java.util.List;

/** A namespace over in-memory blocks, one DRAM and one disk server, 4 KiB blocks and a 1 s reuse delay. */
class NamespaceFixture {
    static final int BLOCK = 4096;
    static final long DELAY = 1_000;
    /** Stands for the client connection that owns leases. */
    static final Object CONN = "connection-1";
    static final Object OTHER_CONN = "connection-2";

    final ManualClock clock = new ManualClock();
    final ServerRegistry registry = new ServerRegistry(List.of("dram", "disk"), BLOCK, 60_000, clock);
    final BlockAllocator allocator = new BlockAllocator(List.of("dram", "disk"), registry, DELAY, clock);
    final MemoryBlocks store = new MemoryBlocks();
    final Namespace ns;

    NamespaceFixture(long dramBlocks, long diskBlocks) {
        this(dramBlocks, diskBlocks, Namespace.DEFAULT_INLINE_MAX);
    }

    /** With {@code inlineMax}: the most bytes a node keeps inline. */
    NamespaceFixture(long dramBlocks, long diskBlocks, int inlineMax) {
        ns = new Namespace(allocator, store, BLOCK, DELAY, inlineMax, clock);
        if (dramBlocks > 0) {
            io.creel.namenode.testing.Servers.grantAll(allocator,
                    registry.register(server("dram", "dram", "h1", 7001, dramBlocks, BLOCK, 1)));
        }
        if (diskBlocks > 0) {
            io.creel.namenode.testing.Servers.grantAll(allocator,
                    registry.register(server("disk", "disk", "h1", 7002, diskBlocks, BLOCK, 2)));
        }
    }

    NamespaceFixture() {
        this(64, 64);
    }

    OpenReply create(String path, NodeType type) {
        return Expect.done(ns.create(new CreateRequest(path, type, "", "", true), CONN));
    }

    OpenReply create(String path, NodeType type, String storageClass) {
        return Expect.done(ns.create(new CreateRequest(path, type, storageClass, "", true), CONN));
    }

    Object createAsync(String path, NodeType type) {
        return ns.create(new CreateRequest(path, type, "", "", true), CONN);
    }

    OpenReply lookup(String path) {
        return ns.lookup(path, false, CONN);
    }

    NodeInfo commit(OpenReply writer, long length, boolean close) {
        return Expect.done(ns.commit(writer.node().id(), writer.lease(), length, close));
    }

    /** Lists a container the way a client does: map its blocks without a lease and read the records. */
    List<DirectoryRecord> list(String path) {
        NodeInfo c = lookup(path).node();
        List<DirectoryRecord> out = new ArrayList<>();
        for (int slot = 0; slot < c.length() / DirectoryRecord.SIZE; slot++) {
            long index = (long) slot * DirectoryRecord.SIZE / BLOCK;
            DirectoryRecord r = store.record(ns.map(c.id(), index, 0), slot);
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    List<String> names(String path) {
        return list(path).stream().map(DirectoryRecord::name).sorted().toList();
    }
}
