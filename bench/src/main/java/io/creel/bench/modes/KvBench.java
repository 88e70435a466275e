package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.report.Units;
import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;

/**
 * {@code kv}: put and get latency by value size, one client with one operation in flight, per
 * data path (same-host and forced TCP) in the tier of {@code --class}. A put is create + write +
 * close of a KeyValue ({@code putValue}); a get is {@code getValue} into one direct buffer per size,
 * reused, as the memory-copy baseline copies between two buffers it made once (a new buffer per get
 * would put the zeroing of fresh memory in the figure); a repeated get of a one-block value reads the
 * storage server while the namenode confirms the version (one round trip).
 * Puts and gets of a size alternate, repetition by repetition.
 */
public final class KvBench {
    /** Bytes each point may move at most, so the 128 MiB points stay a few operations long. */
    private static final long BYTES_PER_POINT = 2L << 30;

    private KvBench() {
    }

    public static void run(BenchContext ctx) {
        String cls = ctx.settings().storageClass();
        for (boolean tcp : ctx.settings().paths()) {
            CreelClient c = ctx.pool().main(tcp);
            String table = ctx.names().path("kv-" + ctx.settings().pathName(tcp));
            c.create(table, NodeType.TABLE, io.creel.bench.scope.RunNamespace.scratch(
                    CreateOptions.defaults().withStorageClass(cls).withEnumerable(false)
                            .withReplication(ctx.settings().replication())))
                    .join();
            for (long size : ctx.settings().sizes()) {
                ByteBuffer value = ByteBuffer.allocateDirect((int) size);
                ByteBuffer got = ByteBuffer.allocateDirect((int) size);
                for (int i = 0; i < size; i += 4096) {
                    value.put(i, (byte) (i >>> 12));
                }
                long budget = Math.max(3, Math.min(ctx.settings().maxOpsPerPoint(), BYTES_PER_POINT / size));
                String key = "v" + size;
                String where = ctx.settings().pathName(tcp) + " " + cls;
                c.putValue(table, key, value.duplicate()).join(); // warm-up: connections, first allocation
                ctx.alternate("kv", List.of(
                        new BenchContext.Point("put " + where, Map.of("size", size), r -> ctx.driver().run(
                                ctx.label("kv put " + where + " " + Units.size(size), r), 1, 1,
                                ctx.settings().durationPerPoint(), budget, size,
                                (client, seq) -> c.putValue(table, key, value.duplicate()))),
                        new BenchContext.Point("get " + where, Map.of("size", size), r -> ctx.driver().run(
                                ctx.label("kv get " + where + " " + Units.size(size), r), 1, 1,
                                ctx.settings().durationPerPoint(), budget, size,
                                (client, seq) -> c.getValue(table, key, got.clear())))));
            }
            c.delete(table, true).join();
        }
    }
}
