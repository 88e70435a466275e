package io.creel.bench.user;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.conf.CreelConf;
import io.creel.common.namespace.NodeType;
import io.creel.storage.local.LocalTierKeys;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One bulk transfer through the client API in a JVM of its own, started fresh for it (nothing
 * warmed up, nothing mapped yet), as an application's first transfer is: {@code get PATH} reads a
 * File and discards the bytes, {@code put LOCAL PATH} copies a local file into a new File. Both
 * use the shape {@code bin/creel fs get/put} use ({@value #CHUNK}-byte buffers, {@value #DEPTH}
 * in flight). It prints a {@link TransferResult} line; the JVM's start is not in it.
 *
 * <p>Arguments: {@code get PATH | put LOCAL PATH}, then {@code --conf KEY=VALUE}... for the client.
 */
public final class FreshClientMain {
    static final int CHUNK = 2 << 20;
    static final int DEPTH = 4;
    private static final long WAIT_SECONDS = 120;

    private FreshClientMain() {
    }

    public static void main(String[] args) {
        try {
            System.out.println(run(args).format());
            System.exit(0);
        } catch (IllegalArgumentException e) {
            System.err.println("fresh client: " + e.getMessage());
            System.exit(2);
        } catch (Exception e) {
            System.err.println("fresh client: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    static TransferResult run(String[] args) throws IOException, ExecutionException, TimeoutException,
            InterruptedException {
        Map<String, String> conf = new LinkedHashMap<>();
        List<String> positional = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--conf")) {
                if (i + 1 >= args.length || args[i + 1].indexOf('=') <= 0) {
                    throw new IllegalArgumentException("--conf needs KEY=VALUE");
                }
                String kv = args[++i];
                conf.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            } else {
                positional.add(args[i]);
            }
        }
        if (positional.size() == 2 && positional.get(0).equals("get")) {
            return get(CreelConf.of(conf), positional.get(1));
        }
        if (positional.size() == 3 && positional.get(0).equals("put")) {
            return put(CreelConf.of(conf), Path.of(positional.get(1)), positional.get(2));
        }
        throw new IllegalArgumentException("usage: get PATH | put LOCAL PATH, then --conf KEY=VALUE...; got "
                + String.join(" ", args));
    }

    /** Client settings of {@code conf} as {@code --conf KEY=VALUE} arguments, with same-host access off for TCP. */
    public static List<String> confArguments(CreelConf conf, boolean tcp) {
        List<String> out = new ArrayList<>();
        conf.explicitSettings().forEach((k, v) -> {
            if (!(tcp && k.equals(LocalTierKeys.LOCAL_ACCESS.name()))) {
                out.add("--conf");
                out.add(k + "=" + v);
            }
        });
        if (tcp) {
            out.add("--conf");
            out.add(LocalTierKeys.LOCAL_ACCESS.name() + "=false");
        }
        return out;
    }

    private record Pending(CompletableFuture<?> done, ByteBuffer buffer, int bytes) {
    }

    private static TransferResult get(CreelConf conf, String path) throws ExecutionException, TimeoutException,
            InterruptedException {
        long t0 = System.nanoTime();
        try (CreelClient c = CreelClient.connect(conf)) {
            CreelNode node = c.lookup(path).get(WAIT_SECONDS, TimeUnit.SECONDS);
            long t1 = System.nanoTime();
            DirectReader reader = node.reader();
            long length = reader.length();
            ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
            ArrayDeque<Pending> inFlight = new ArrayDeque<>();
            long next = 0;
            long total = 0;
            while (next < length || !inFlight.isEmpty()) {
                while (next < length && inFlight.size() < DEPTH) {
                    ByteBuffer buf = free.isEmpty() ? ByteBuffer.allocateDirect(CHUNK) : free.pop();
                    int want = (int) Math.min(CHUNK, length - next);
                    buf.clear().limit(want);
                    // The size is taken before the read: a read may fill (and advance) the buffer at once.
                    inFlight.add(new Pending(reader.read(next, buf), buf, want));
                    next += want;
                }
                Pending p = inFlight.poll();
                int n = (Integer) p.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
                if (n != p.bytes()) {
                    throw new IllegalStateException(path + ": a read of " + p.bytes() + " bytes returned " + n);
                }
                total += n;
                free.push(p.buffer());
            }
            long t2 = System.nanoTime();
            return new TransferResult(total, Math.max(1, t2 - t1), t1 - t0);
        }
    }

    private static TransferResult put(CreelConf conf, Path local, String path) throws IOException, ExecutionException,
            TimeoutException, InterruptedException {
        long t0 = System.nanoTime();
        try (CreelClient c = CreelClient.connect(conf);
             FileChannel in = FileChannel.open(local, StandardOpenOption.READ)) {
            CreelNode node = c.create(path, NodeType.FILE).get(WAIT_SECONDS, TimeUnit.SECONDS);
            long t1 = System.nanoTime();
            DirectWriter writer = node.writer();
            ArrayDeque<Pending> inFlight = new ArrayDeque<>();
            long total = 0;
            boolean eof = false;
            while (!eof) {
                ByteBuffer buf;
                if (inFlight.size() < DEPTH) {
                    buf = ByteBuffer.allocateDirect(CHUNK);
                } else {
                    Pending p = inFlight.poll();
                    p.done().get(WAIT_SECONDS, TimeUnit.SECONDS);
                    buf = p.buffer().clear();
                }
                while (buf.hasRemaining()) {
                    if (in.read(buf) < 0) {
                        eof = true;
                        break;
                    }
                }
                buf.flip();
                int bytes = buf.remaining();
                if (bytes > 0) {
                    total += bytes;
                    inFlight.add(new Pending(writer.write(buf), buf, bytes));
                }
            }
            while (!inFlight.isEmpty()) {
                inFlight.poll().done().get(WAIT_SECONDS, TimeUnit.SECONDS);
            }
            writer.close().get(WAIT_SECONDS, TimeUnit.SECONDS);
            long t2 = System.nanoTime();
            return new TransferResult(total, Math.max(1, t2 - t1), t1 - t0);
        }
    }
}
