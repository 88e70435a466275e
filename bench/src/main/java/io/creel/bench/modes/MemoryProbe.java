package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.cluster.MemoryUse;
import io.creel.bench.stats.Ratio;
import java.util.Optional;

/**
 * Memory the namenode spends per node, measured inside the process that holds it (the cluster
 * process the bench started, or the bench's JVM with {@code --local}): heap after full
 * collections plus direct buffers, before and after preloading, divided by the nodes added.
 * Directory records live in the storage tier's files, not in this figure. With {@code --local},
 * the bench's own clients' garbage is collected too.
 */
final class MemoryProbe {
    private final BenchContext ctx;
    private final Optional<MemoryUse> before;

    private MemoryProbe(BenchContext ctx, Optional<MemoryUse> before) {
        this.ctx = ctx;
        this.before = before;
    }

    static MemoryProbe start(BenchContext ctx) {
        ctx.progress().point("namenode memory before preloading");
        return new MemoryProbe(ctx, ctx.cluster().namenodeMemory());
    }

    void finish(long nodesAdded) {
        if (before.isEmpty()) {
            ctx.report().note("namenode bytes/node: not measured (the namenode's process is not one the bench "
                    + "started: run without --existing)");
            return;
        }
        ctx.progress().point("namenode memory after preloading");
        MemoryUse after = ctx.cluster().namenodeMemory().orElseThrow();
        long heap = after.heapBytes() - before.get().heapBytes();
        long direct = after.directBytes() - before.get().directBytes();
        double perNode = nodesAdded <= 0 ? 0 : (heap + direct) / (double) nodesAdded;
        ctx.report().note(String.format("namenode memory: heap %,d bytes and direct buffers %,d bytes more after "
                + "%,d nodes = %.0f bytes/node", heap, direct, nodesAdded, perNode));
        ctx.report().ratio(Ratio.atMost("4 namenode bytes/node (" + nodesAdded + " nodes)", perNode, 200,
                "B/node", 1.0));
    }
}
