package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.stats.Ratio;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Heap the namenode spends per node, measured in this JVM (so only with {@code --local}): heap used
 * after a full collection before and after preloading, divided by the nodes added. Client-side
 * garbage is collected too, and directory records live in the storage tier's files, off the heap.
 */
final class MemoryProbe {
    private final BenchContext ctx;
    private final long before;

    private MemoryProbe(BenchContext ctx, long before) {
        this.ctx = ctx;
        this.before = before;
    }

    static MemoryProbe start(BenchContext ctx) {
        return new MemoryProbe(ctx, ctx.settings().local() ? usedAfterGc() : -1);
    }

    void finish(long nodesAdded) {
        if (before < 0) {
            ctx.report().note("namenode bytes/node: not measured (needs --local: the namenode must be in this JVM)");
            return;
        }
        long after = usedAfterGc();
        double perNode = nodesAdded <= 0 ? 0 : (after - before) / (double) nodesAdded;
        ctx.report().note(String.format("namenode heap: %,d bytes more after %,d nodes = %.0f bytes/node",
                after - before, nodesAdded, perNode));
        ctx.report().ratio(Ratio.atMost("6a namenode heap bytes/node (" + nodesAdded + " nodes)", perNode, 200,
                "B/node", 1.0));
    }

    private static long usedAfterGc() {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            System.gc();
            used = Math.min(used, m.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
