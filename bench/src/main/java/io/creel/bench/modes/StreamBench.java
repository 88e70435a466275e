package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.report.Measurement;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * {@code read} and {@code write}: sequential bandwidth of one large File versus the application's
 * buffer size, through the direct API (one buffer in flight, as an application loop does) and the
 * buffered java.io streams, per data path.
 */
public final class StreamBench {
    private StreamBench() {
    }

    public static void read(BenchContext ctx) {
        long fileSize = ctx.settings().fileSize();
        String cls = ctx.settings().storageClass();
        CreelClient writerClient = ctx.pool().main(false);
        String dir = "/bench-read-" + System.nanoTime();
        writerClient.create(dir, NodeType.DIRECTORY, CreateOptions.defaults().withStorageClass(cls)).join();
        String path = dir + "/data";
        CreelNode f = writerClient.create(path, NodeType.FILE).join();
        ByteBuffer chunk = ByteBuffer.allocateDirect(1 << 20);
        DirectWriter w = f.writer();
        for (long done = 0; done < fileSize; done += chunk.capacity()) {
            w.write(chunk.duplicate().limit((int) Math.min(chunk.capacity(), fileSize - done))).join();
        }
        w.close().join();
        for (boolean tcp : ctx.settings().paths()) {
            CreelClient c = ctx.pool().main(tcp);
            String where = ctx.settings().pathName(tcp) + " " + cls;
            for (int buffer : ctx.settings().buffers()) {
                CreelNode node = c.lookup(path).join();
                DirectReader r = node.reader();
                ByteBuffer dst = ByteBuffer.allocateDirect(buffer);
                Summary direct = ctx.driver().run("read direct " + where + " buffer=" + buffer, 1, 1,
                        ctx.settings().durationPerPoint(), fileSize / buffer, buffer, (x, seq) -> r.read(dst.clear()));
                ctx.report().add(new Measurement("read", "read direct " + where, Map.of("buffer", buffer), direct));
                InputStream in = c.lookup(path).join().inputStream();
                byte[] b = new byte[buffer];
                Summary buffered = ctx.driver().run("read stream " + where + " buffer=" + buffer, 1, 1,
                        ctx.settings().durationPerPoint(), fileSize / buffer, buffer, (x, seq) -> {
                            try {
                                int n = in.readNBytes(b, 0, buffer);
                                return CompletableFuture.completedFuture(n);
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        });
                close(in);
                ctx.report().add(new Measurement("read", "read stream " + where, Map.of("buffer", buffer), buffered));
            }
        }
        writerClient.delete(dir, true).join();
    }

    public static void write(BenchContext ctx) {
        long fileSize = ctx.settings().fileSize();
        String cls = ctx.settings().storageClass();
        for (boolean tcp : ctx.settings().paths()) {
            CreelClient c = ctx.pool().main(tcp);
            String where = ctx.settings().pathName(tcp) + " " + cls;
            String dir = "/bench-write-" + ctx.settings().pathName(tcp) + "-" + System.nanoTime();
            c.create(dir, NodeType.DIRECTORY, CreateOptions.defaults().withStorageClass(cls)).join();
            for (int buffer : ctx.settings().buffers()) {
                ByteBuffer src = ByteBuffer.allocateDirect(buffer);
                DirectWriter w = c.create(dir + "/direct-" + buffer, NodeType.FILE).join().writer();
                Summary direct = ctx.driver().run("write direct " + where + " buffer=" + buffer, 1, 1,
                        ctx.settings().durationPerPoint(), fileSize / buffer, buffer, (x, seq) -> w.write(src.clear()));
                w.close().join();
                ctx.report().add(new Measurement("write", "write direct " + where, Map.of("buffer", buffer), direct));
                OutputStream out = c.create(dir + "/stream-" + buffer, NodeType.FILE).join().outputStream();
                byte[] b = new byte[buffer];
                Summary buffered = ctx.driver().run("write stream " + where + " buffer=" + buffer, 1, 1,
                        ctx.settings().durationPerPoint(), fileSize / buffer, buffer, (x, seq) -> {
                            try {
                                out.write(b);
                                return CompletableFuture.completedFuture(null);
                            } catch (IOException e) {
                                throw new UncheckedIOException(e);
                            }
                        });
                close(out);
                ctx.report().add(new Measurement("write", "write stream " + where, Map.of("buffer", buffer),
                        buffered));
                c.delete(dir + "/direct-" + buffer, false).join();
                c.delete(dir + "/stream-" + buffer, false).join();
            }
            c.delete(dir, true).join();
        }
    }

    static void close(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
