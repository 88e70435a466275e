package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.report.Measurement;
import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * {@code lookup} and {@code create}: metadata operations per second and their latency, for every
 * concurrency shape. The namespace is preloaded with {@code --nodes} Directories in groups of
 * {@value #GROUP} under {@code /bench-ns}; lookups pick preloaded paths at random.
 */
public final class MetaBench {
    static final int GROUP = 1000;
    private static final String NS = "/bench-ns";
    /** Lookup throughput is compared at this many nodes and at {@code --nodes} (target 6). */
    static final int SMALL_NAMESPACE = 10_000;

    private final BenchContext ctx;
    private long preloaded;

    public MetaBench(BenchContext ctx) {
        this.ctx = ctx;
    }

    public void lookup() {
        int nodes = ctx.settings().nodes();
        if (nodes > SMALL_NAMESPACE) {
            preloadTo(SMALL_NAMESPACE);
            Summary small = lookupShape(SMALL_NAMESPACE, 50, 16, "lookup (namespace of 10K)");
            MemoryProbe probe = MemoryProbe.start(ctx);
            long before = preloaded;
            preloadTo(nodes);
            probe.finish(preloaded - before);
            Summary large = lookupShape(nodes, 50, 16, "lookup (namespace of " + nodes + ")");
            ctx.report().ratio(Ratio.atLeast("6b lookup 50x16 at " + nodes + " vs 10K nodes", large.opsPerSec(),
                    small.opsPerSec(), "ops/s", 0.8));
        } else {
            MemoryProbe probe = MemoryProbe.start(ctx);
            preloadTo(nodes);
            probe.finish(preloaded);
        }
        for (int[] shape : ctx.settings().shapes()) {
            lookupShape(nodes, shape[0], shape[1], "lookup");
        }
    }

    private Summary lookupShape(int nodes, int clients, int inFlight, String series) {
        List<CreelClient> cs = ctx.pool().many(clients, false);
        SplittableRandom seedRnd = new SplittableRandom(42);
        long seed = seedRnd.nextLong();
        Summary s = ctx.driver().run(series + " " + clients + "x" + inFlight, clients, inFlight,
                ctx.settings().durationPerPoint(), ctx.settings().maxOpsPerPoint(), 0, (c, seq) -> {
                    long i = Math.floorMod(mix(seq ^ seed), (long) preloaded);
                    return cs.get(c).lookup(pathOf(i));
                });
        ctx.report().add(new Measurement("lookup", series, Map.of("clients", clients, "inFlight", inFlight,
                "nodes", nodes), s));
        return s;
    }

    /**
     * KeyValue creates in a non-enumerable Table, each committed with no data in the same call
     * ({@code putValue}: one request, as Redis SET is one command).
     */
    public void create() {
        CreelClient main = ctx.pool().main(false);
        String table = "/bench-create-" + System.nanoTime();
        main.create(table, NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
        for (int[] shape : ctx.settings().shapes()) {
            int clients = shape[0];
            List<CreelClient> cs = ctx.pool().many(clients, false);
            String prefix = "k" + clients + "x" + shape[1] + "-";
            ByteBuffer empty = ByteBuffer.allocate(0);
            Summary s = ctx.driver().run("create " + clients + "x" + shape[1], clients, shape[1],
                    ctx.settings().durationPerPoint(), ctx.settings().maxOpsPerPoint(), 0,
                    (c, seq) -> cs.get(c).putValue(table, prefix + seq, empty));
            ctx.report().add(new Measurement("create", "create+commit KeyValue", Map.of("clients", clients,
                    "inFlight", shape[1]), s));
        }
        main.delete(table, true).join();
    }

    /** Creates Directories until the namespace holds {@code target} preloaded nodes. */
    private void preloadTo(long target) {
        if (preloaded >= target) {
            return;
        }
        CreelClient c = ctx.pool().main(false);
        if (preloaded == 0) {
            createIgnoringExisting(c, NS);
        }
        long firstGroup = (preloaded + GROUP - 1) / GROUP;
        long lastGroup = (target - 1) / GROUP;
        for (long g = firstGroup; g <= lastGroup; g++) {
            createIgnoringExisting(c, NS + "/g" + g);
        }
        long from = preloaded;
        Summary s = ctx.driver().run("preload " + target + " nodes", 1, 64, Duration.ofHours(2), target - from, 0,
                (client, seq) -> c.create(pathOf(from + seq), NodeType.DIRECTORY));
        preloaded = target;
        ctx.report().add(new Measurement("lookup", "preload (create Directory)", Map.of("clients", 1,
                "inFlight", 64, "nodes", target), s));
    }

    private static void createIgnoringExisting(CreelClient c, String path) {
        try {
            c.create(path, NodeType.DIRECTORY).get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (CreelException.unwrap(e.getCause()).code() != ErrorCode.ALREADY_EXISTS) {
                throw CreelException.unwrap(e.getCause());
            }
        } catch (java.util.concurrent.TimeoutException e) {
            throw new CreelException(ErrorCode.TIMEOUT, "creating " + path + " took more than 30 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.UNAVAILABLE, "interrupted while creating " + path);
        }
    }

    static String pathOf(long i) {
        return NS + "/g" + (i / GROUP) + "/d" + i;
    }

    /** A 64-bit mixer (SplitMix64's finaliser): spreads sequence numbers over the namespace. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }

    static CompletableFuture<Void> done() {
        return CompletableFuture.completedFuture(null);
    }
}
