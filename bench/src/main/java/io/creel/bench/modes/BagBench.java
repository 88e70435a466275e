package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.stats.LatencyRecorder;
import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.DirectWriter;
import io.creel.client.io.BagReader;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@code bag}: read throughput of a Bag of many Files as one stream, per data path. */
public final class BagBench {
    private BagBench() {
    }

    public static void run(BenchContext ctx) {
        int files = ctx.settings().bagFiles();
        long fileSize = ctx.settings().bagFileSize();
        CreelClient w = ctx.pool().main(false);
        String dir = ctx.names().path("bag");
        w.create(dir, NodeType.DIRECTORY, io.creel.bench.scope.RunNamespace.scratch(
                CreateOptions.defaults().withStorageClass(ctx.settings().storageClass()))).join();
        String bag = dir + "/bag";
        w.create(bag, NodeType.BAG).join();
        ByteBuffer data = ByteBuffer.allocateDirect((int) fileSize);
        ctx.progress().point("bag: writing " + files + " files");
        for (int i = 0; i < files; i++) {
            DirectWriter dw = w.create(bag + "/part-" + i, NodeType.FILE).join().writer();
            dw.write(data.duplicate()).join();
            dw.close().join();
        }
        for (boolean tcp : ctx.settings().paths()) {
            CreelClient c = ctx.pool().main(tcp);
            String where = ctx.settings().pathName(tcp) + " " + ctx.settings().storageClass();
            ctx.repeat("bag", "bag read " + where, Map.of("files", files, "size", fileSize), r -> {
                LatencyRecorder rec = new LatencyRecorder();
                ctx.progress().point(ctx.label("bag read " + where, r), rec::count);
                long start = System.nanoTime();
                long end = start + ctx.settings().durationPerPoint().toNanos();
                ByteBuffer dst = ByteBuffer.allocateDirect(1 << 20);
                do {
                    BagReader reader = c.lookup(bag).join().bagReader();
                    long t0 = System.nanoTime();
                    long bytes = 0;
                    int n;
                    try {
                        while ((n = reader.read(dst.clear()).get(60, TimeUnit.SECONDS)) >= 0) {
                            bytes += n;
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        throw new IllegalStateException("bag read " + where + " of " + bag + " failed: " + e, e);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException("bag read " + where + " of " + bag + " interrupted", e);
                    }
                    if (bytes != files * fileSize) {
                        throw new IllegalStateException("bag read " + bytes + " bytes, expected " + files * fileSize);
                    }
                    rec.record(System.nanoTime() - t0, bytes);
                } while (System.nanoTime() < end);
                return rec.summary(System.nanoTime() - start);
            });
        }
        w.delete(dir, true).join();
    }
}
