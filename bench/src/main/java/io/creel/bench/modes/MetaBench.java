package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.report.Measurement;
import io.creel.bench.stats.Goal;
import io.creel.bench.stats.Ratio;
import io.creel.bench.stats.Summary;
import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code lookup} and {@code create}: metadata operations per second and their latency, for every
 * concurrency shape, each shape measured in alternation with Redis (GET for lookups, SET for
 * creates) at the same shape. The namespace is preloaded with {@code --nodes} Directories in
 * groups of {@value #GROUP} under the run's {@code ns} directory; lookups pick preloaded paths at
 * random.
 */
public final class MetaBench {
    static final int GROUP = 1000;
    /** Lookup throughput is compared at this many nodes and at {@code --nodes} (target 4). */
    static final int SMALL_NAMESPACE = 10_000;

    private final BenchContext ctx;
    private String ns;
    private long preloaded;

    public MetaBench(BenchContext ctx) {
        this.ctx = ctx;
    }

    public void lookup() {
        int nodes = ctx.settings().nodes();
        if (nodes > SMALL_NAMESPACE) {
            preloadTo(SMALL_NAMESPACE);
            // The 10K point is the ratio's baseline and runs first: without a warm-up it measured a
            // cluster process whose JIT had not compiled the lookup path yet (105K-541K ops/s in one run).
            lookups("lookup warm-up 50x16 in 10K nodes (not recorded)", 50, 16);
            Measurement small = ctx.repeat("lookup", "lookup (namespace of 10K)", Map.of("clients", 50,
                    "inFlight", 16, "nodes", SMALL_NAMESPACE), r -> lookups(ctx.label("lookup 50x16 in 10K nodes", r),
                    50, 16));
            MemoryProbe probe = MemoryProbe.start(ctx);
            long before = preloaded;
            preloadTo(nodes);
            probe.finish(preloaded - before);
            Measurement large = ctx.repeat("lookup", "lookup (namespace of " + nodes + ")", Map.of("clients", 50,
                    "inFlight", 16, "nodes", nodes), r -> lookups(ctx.label("lookup 50x16 in " + nodes + " nodes", r),
                    50, 16));
            ctx.report().ratio(Ratio.of("4 lookup 50x16 at " + nodes + " vs 10K nodes", "ops/s", Goal.atLeast(0.8),
                    large.values(Summary::opsPerSec), small.values(Summary::opsPerSec), false));
        } else {
            MemoryProbe probe = MemoryProbe.start(ctx);
            preloadTo(nodes);
            probe.finish(preloaded);
        }
        int[] widest = widest();
        lookups("lookup warm-up " + widest[0] + "x" + widest[1] + " (not recorded)", widest[0], widest[1]);
        for (int[] shape : ctx.settings().shapes()) {
            int clients = shape[0];
            int inFlight = shape[1];
            String s = clients + "x" + inFlight;
            List<BenchContext.Point> points = new ArrayList<>();
            ctx.redis().ifPresent(redis -> points.add(new BenchContext.Point("redis GET",
                    Map.of("size", BaselineBench.REDIS_SMALL, "clients", clients, "inFlight", inFlight),
                    r -> redis.get(ctx.label("redis GET " + s, r), clients, inFlight, BaselineBench.REDIS_SMALL,
                            ctx.settings().durationPerPoint()))));
            points.add(new BenchContext.Point("lookup", Map.of("clients", clients, "inFlight", inFlight,
                    "nodes", nodes), r -> lookups(ctx.label("lookup " + s, r), clients, inFlight)));
            ctx.alternate("lookup", points);
        }
    }

    private Summary lookups(String label, int clients, int inFlight) {
        List<CreelClient> cs = ctx.pool().many(clients, false);
        long seed = 0x5eedL;
        long n = preloaded;
        return ctx.driver().run(label, clients, inFlight, ctx.settings().durationPerPoint(),
                ctx.settings().maxOpsPerPoint(), 0, (c, seq) -> {
                    long i = Math.floorMod(mix(seq ^ seed), n);
                    return cs.get(c).lookup(pathOf(i));
                });
    }

    /**
     * KeyValue creates in a non-enumerable Table, each committed with no data in the same call
     * ({@code putValue}: one request, as Redis SET is one command). Each
     * repetition creates into a fresh Table, removed right after, so every repetition starts from
     * the same namespace.
     */
    public void create() {
        int[] widest = widest();
        creates("create warm-up " + widest[0] + "x" + widest[1] + " (not recorded)", widest[0], widest[1],
                ctx.names().path("create-warm-up"));
        for (int[] shape : ctx.settings().shapes()) {
            int clients = shape[0];
            int inFlight = shape[1];
            String s = clients + "x" + inFlight;
            List<BenchContext.Point> points = new ArrayList<>();
            ctx.redis().ifPresent(redis -> points.add(new BenchContext.Point("redis SET",
                    Map.of("size", BaselineBench.REDIS_SMALL, "clients", clients, "inFlight", inFlight),
                    r -> redis.set(ctx.label("redis SET " + s, r), clients, inFlight, BaselineBench.REDIS_SMALL,
                            ctx.settings().durationPerPoint()))));
            points.add(new BenchContext.Point("create+commit KeyValue", Map.of("clients", clients,
                    "inFlight", inFlight), r -> creates(ctx.label("create " + s, r), clients, inFlight,
                    ctx.names().path("create-" + s + "-r" + r))));
            ctx.alternate("create", points);
        }
    }

    /**
     * The shape with the most operations in flight. A fresh cluster process has not compiled its
     * hot paths yet (Redis, in C, needs no warming): one unrecorded point of each kind runs first.
     */
    private int[] widest() {
        List<int[]> shapes = ctx.settings().shapes();
        return shapes.get(shapes.size() - 1);
    }

    private Summary creates(String label, int clients, int inFlight, String table) {
        CreelClient main = ctx.pool().main(false);
        main.create(table, NodeType.TABLE, io.creel.bench.scope.RunNamespace.scratch(
                CreateOptions.defaults().withEnumerable(false))).join();
        List<CreelClient> cs = ctx.pool().many(clients, false);
        ByteBuffer empty = ByteBuffer.allocate(0);
        Summary s = ctx.driver().run(label, clients, inFlight, ctx.settings().durationPerPoint(),
                ctx.settings().maxOpsPerPoint(), 0, (c, seq) -> cs.get(c).putValue(table, "k" + seq, empty.duplicate()));
        await(main.delete(table, true), "removing " + table);
        return s;
    }

    /** Creates Directories until the namespace holds {@code target} preloaded nodes. */
    private void preloadTo(long target) {
        if (preloaded >= target) {
            return;
        }
        CreelClient c = ctx.pool().main(false);
        if (ns == null) {
            ns = ctx.names().path("ns");
            await(c.create(ns, NodeType.DIRECTORY, io.creel.bench.scope.RunNamespace.scratch(CreateOptions.defaults())),
                    "creating " + ns);
        }
        long firstGroup = (preloaded + GROUP - 1) / GROUP;
        long lastGroup = (target - 1) / GROUP;
        for (long g = firstGroup; g <= lastGroup; g++) {
            String group = ns + "/g" + g;
            ctx.names().track(group); // removed group by group: no single removal of millions of nodes
            await(c.create(group, NodeType.DIRECTORY), "creating " + group);
        }
        long from = preloaded;
        Summary s = ctx.driver().run("preload " + target + " nodes", 1, 64, Duration.ofHours(2), target - from, 0,
                (client, seq) -> c.create(pathOf(from + seq), NodeType.DIRECTORY));
        if (s.count() != target - from) {
            throw new CreelException(ErrorCode.INTERNAL, "preloading " + (target - from) + " nodes created only "
                    + s.count());
        }
        preloaded = target;
        ctx.report().add(new Measurement("lookup", "preload (create Directory)", Map.of("clients", 1,
                "inFlight", 64, "nodes", target), s));
    }

    private <T> T await(java.util.concurrent.CompletableFuture<T> f, String what) {
        Duration timeout = ctx.conf().get(io.creel.common.conf.ConfKeys.CLIENT_REQUEST_TIMEOUT).multipliedBy(4);
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            CreelException ce = CreelException.unwrap(e.getCause());
            throw new CreelException(ce.code(), what + ": " + ce.getMessage(), ce);
        } catch (TimeoutException e) {
            throw new CreelException(ErrorCode.TIMEOUT, what + " took more than " + timeout.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.UNAVAILABLE, "interrupted while " + what);
        }
    }

    String pathOf(long i) {
        return ns + "/g" + (i / GROUP) + "/d" + i;
    }

    /** A 64-bit mixer (SplitMix64's finaliser): spreads sequence numbers over the namespace. */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
