package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.stats.Summary;
import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.namespace.NodeType;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code read} and {@code write}: sequential bandwidth of one large File versus the application's
 * buffer size, through the direct API (one buffer in flight, as an application loop does) and the
 * buffered java.io streams, per data path; direct and stream alternate, repetition by repetition.
 */
public final class StreamBench {
    private StreamBench() {
    }

    public static void read(BenchContext ctx) {
        long fileSize = ctx.settings().fileSize();
        String cls = ctx.settings().storageClass();
        CreelClient writerClient = ctx.pool().main(false);
        String dir = ctx.names().path("read");
        writerClient.create(dir, NodeType.DIRECTORY, io.creel.bench.scope.RunNamespace.scratch(CreateOptions.defaults()
                .withStorageClass(cls).withReplication(ctx.settings().replication()))).join();
        String path = dir + "/data";
        CreelNode f = writerClient.create(path, NodeType.FILE).join();
        ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
        DirectWriter w = f.writer();
        ctx.progress().point("read: writing " + fileSize + " bytes");
        for (long done = 0; done < fileSize; done += chunk.capacity()) {
            w.write(chunk.duplicate().limit((int) Math.min(chunk.capacity(), fileSize - done))).join();
        }
        w.close().join();
        for (boolean tcp : ctx.settings().paths()) {
            CreelClient c = ctx.pool().main(tcp);
            String where = ctx.settings().pathName(tcp) + " " + cls;
            for (int buffer : ctx.settings().buffers()) {
                ctx.alternate("read", List.of(
                        new BenchContext.Point("read direct " + where, Map.of("buffer", buffer),
                                r -> readDirect(ctx, c, path, buffer, ctx.label("read direct " + where + " buffer="
                                        + buffer, r))),
                        new BenchContext.Point("read stream " + where, Map.of("buffer", buffer),
                                r -> readStream(ctx, c, path, buffer, ctx.label("read stream " + where + " buffer="
                                        + buffer, r)))));
            }
        }
        writerClient.delete(dir, true).join();
    }

    private static Summary readDirect(BenchContext ctx, CreelClient c, String path, int buffer, String label) {
        DirectReader r = c.lookup(path).join().reader();
        ByteBuffer dst = ByteBuffer.allocateDirect(buffer);
        return ctx.driver().run(label, 1, 1, ctx.settings().durationPerPoint(), ctx.settings().fileSize() / buffer,
                buffer, (x, seq) -> r.read(dst.clear()));
    }

    private static Summary readStream(BenchContext ctx, CreelClient c, String path, int buffer, String label) {
        InputStream in = c.lookup(path).join().inputStream();
        byte[] b = new byte[buffer];
        try {
            return ctx.driver().run(label, 1, 1, ctx.settings().durationPerPoint(),
                    ctx.settings().fileSize() / buffer, buffer, (x, seq) -> {
                        try {
                            return CompletableFuture.completedFuture(in.readNBytes(b, 0, buffer));
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        } finally {
            close(in);
        }
    }

    public static void write(BenchContext ctx) {
        String cls = ctx.settings().storageClass();
        for (boolean tcp : ctx.settings().paths()) {
            CreelClient c = ctx.pool().main(tcp);
            String where = ctx.settings().pathName(tcp) + " " + cls;
            String dir = ctx.names().path("write-" + ctx.settings().pathName(tcp));
            c.create(dir, NodeType.DIRECTORY, io.creel.bench.scope.RunNamespace.scratch(CreateOptions.defaults()
                    .withStorageClass(cls).withReplication(ctx.settings().replication()))).join();
            for (int buffer : ctx.settings().buffers()) {
                ctx.alternate("write", List.of(
                        new BenchContext.Point("write direct " + where, Map.of("buffer", buffer),
                                r -> writeDirect(ctx, c, dir + "/direct-" + buffer + "-r" + r, buffer,
                                        ctx.label("write direct " + where + " buffer=" + buffer, r))),
                        new BenchContext.Point("write stream " + where, Map.of("buffer", buffer),
                                r -> writeStream(ctx, c, dir + "/stream-" + buffer + "-r" + r, buffer,
                                        ctx.label("write stream " + where + " buffer=" + buffer, r)))));
            }
            c.delete(dir, true).join();
        }
    }

    private static Summary writeDirect(BenchContext ctx, CreelClient c, String path, int buffer, String label) {
        ByteBuffer src = ByteBuffer.allocateDirect(buffer);
        DirectWriter w = c.create(path, NodeType.FILE).join().writer();
        Summary s = ctx.driver().run(label, 1, 1, ctx.settings().durationPerPoint(),
                ctx.settings().fileSize() / buffer, buffer, (x, seq) -> w.write(src.clear()));
        w.close().join();
        c.delete(path, false).join();
        return s;
    }

    private static Summary writeStream(BenchContext ctx, CreelClient c, String path, int buffer, String label) {
        OutputStream out = c.create(path, NodeType.FILE).join().outputStream();
        byte[] b = new byte[buffer];
        Summary s;
        try {
            s = ctx.driver().run(label, 1, 1, ctx.settings().durationPerPoint(), ctx.settings().fileSize() / buffer,
                    buffer, (x, seq) -> {
                        try {
                            out.write(b);
                            return CompletableFuture.completedFuture(null);
                        } catch (IOException e) {
                            throw new UncheckedIOException(e);
                        }
                    });
        } finally {
            close(out);
        }
        c.delete(path, false).join();
        return s;
    }

    static void close(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
