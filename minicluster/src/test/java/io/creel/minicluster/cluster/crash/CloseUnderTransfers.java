package io.creel.minicluster.cluster.crash;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.minicluster.MiniCluster;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.server.StorageServer;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * The main of a child JVM that closes same-host transports and whole clients while reads and writes
 * are running through them, many times, at random moments. Every transfer must end with the right
 * bytes or a clear {@link CreelException}, within a bounded time; a transfer that touched memory
 * the close had unmapped would not end in an error but in a SIGSEGV of the whole JVM, which the
 * parent ({@link CloseUnderTransfersTest}) sees as a crash log and a non-zero exit.
 *
 * <p>Arguments: {@code transports N}, {@code clients N} or {@code servers N}, a seed, and a scratch
 * directory.
 */
public final class CloseUnderTransfers {
    static final int BLOCK = 64 << 10;
    private static final int SEEDED_BLOCKS = 8;
    private static final long TAG = 1;
    private static final int FILE_BLOCKS = 24;

    private CloseUnderTransfers() {
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int iterations = Integer.parseInt(args[1]);
        long seed = Long.parseLong(args[2]);
        Path scratch = Path.of(args[3]);
        long t0 = System.nanoTime();
        int[] outcomes = switch (mode) {
            case "transports" -> transports(iterations, new Random(seed), scratch);
            case "clients" -> clients(iterations, new Random(seed), scratch);
            case "servers" -> servers(iterations, new Random(seed), scratch);
            default -> throw new IllegalArgumentException("mode " + mode + ": transports, clients or servers");
        };
        System.out.printf("%s: %d closes, %d transfers completed, %d failed with a clear error, %d ms%n", mode,
                iterations, outcomes[0], outcomes[1], (System.nanoTime() - t0) / 1_000_000);
        System.exit(0); // the servers' and clients' threads are daemons or closed; exit at once regardless
    }

    /**
     * Opens the "mapped" transport to a DRAM server (or, every fourth time, "local-file" to a disk
     * server), runs reads and writes through it on two threads, and closes it under them.
     */
    static int[] transports(int iterations, Random random, Path scratch) throws Exception {
        CreelConf conf = CreelConf.of(Map.of(
                "creel.block.size", "64k", "creel.storage.bind.host", "127.0.0.1", "creel.storage.port", "0",
                "creel.net.event.loops", "2", "creel.client.request.timeout", "10s",
                "creel.storage.dram.size", "1m", "creel.storage.dram.path", dir(scratch, "dram").toString(),
                "creel.storage.disk.size", "1m", "creel.storage.disk.path", dir(scratch, "disk").toString()));
        int[] outcomes = new int[2];
        try (EventLoops serverLoops = EventLoops.create(conf, "stress-server");
             EventLoops clientLoops = EventLoops.create(conf, "stress-client");
             StorageServer dram = served(StorageServer.open(conf, "dram", serverLoops, "localhost", "stress-host"));
             StorageServer disk = served(StorageServer.open(conf, "disk", serverLoops, "localhost", "stress-host"));
             RpcConnections connections = new RpcConnections(clientLoops, conf)) {
            TransportContext ctx = new TransportContext(conf, connections);
            StorageServerInfo dramInfo = dram.describe();
            StorageServerInfo diskInfo = disk.describe();
            try (BlockTransport tcp = provider("tcp").open(diskInfo, ctx);
                 BlockTransport mapped = provider("mapped").open(dramInfo, ctx)) {
                for (int b = 0; b < SEEDED_BLOCKS; b++) {
                    await(tcp.write(at(diskInfo, b), 0, ByteBuffer.wrap(pattern(b))));
                    await(mapped.write(at(dramInfo, b), 0, ByteBuffer.wrap(pattern(b))));
                }
            }
            ExecutorService pool = Executors.newFixedThreadPool(2, daemon("stress-transfer"));
            try {
                for (int i = 0; i < iterations; i++) {
                    boolean disky = i % 4 == 3;
                    StorageServerInfo server = disky ? diskInfo : dramInfo;
                    BlockTransport t = provider(disky ? "local-file" : "mapped").open(server, ctx);
                    if (t == null) {
                        throw new AssertionError("the same-host transport declined server " + server.address());
                    }
                    List<Future<int[]>> workers = new ArrayList<>();
                    for (int w = 0; w < 2; w++) {
                        long workerSeed = random.nextLong();
                        workers.add(pool.submit(() -> transferUntilRefused(t, server, !disky, new Random(workerSeed))));
                    }
                    LockSupport.parkNanos(random.nextInt(300_000));
                    t.close();
                    for (Future<int[]> w : workers) {
                        int[] o = w.get(30, TimeUnit.SECONDS);
                        outcomes[0] += o[0];
                        outcomes[1] += o[1];
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
        return outcomes;
    }

    /**
     * Starts a DRAM storage server, reads its blocks over TCP (sent from its mapped region without a
     * copy) and through the same-host mapping on two threads, and closes the server under them: the
     * server's unmapping must wait for its own replies in flight as the client's does for its copies.
     */
    static int[] servers(int iterations, Random random, Path scratch) throws Exception {
        int[] outcomes = new int[2];
        Path dramDir = dir(scratch, "dram");
        CreelConf conf = CreelConf.of(Map.of(
                "creel.block.size", "64k", "creel.storage.bind.host", "127.0.0.1", "creel.storage.port", "0",
                "creel.net.event.loops", "2", "creel.client.request.timeout", "10s",
                "creel.client.connect.timeout", "2s",
                "creel.storage.dram.size", "1m", "creel.storage.dram.path", dramDir.toString()));
        ExecutorService pool = Executors.newFixedThreadPool(2, daemon("stress-transfer"));
        try (EventLoops serverLoops = EventLoops.create(conf, "stress-server");
             EventLoops clientLoops = EventLoops.create(conf, "stress-client")) {
            for (int i = 0; i < iterations; i++) {
                StorageServer dram = served(StorageServer.open(conf, "dram", serverLoops, "localhost", "stress-host"));
                StorageServerInfo info = dram.describe();
                try (RpcConnections connections = new RpcConnections(clientLoops, conf)) {
                    TransportContext ctx = new TransportContext(conf, connections);
                    try (BlockTransport tcp = provider("tcp").open(info, ctx);
                         BlockTransport mapped = provider("mapped").open(info, ctx)) {
                        for (int b = 0; b < SEEDED_BLOCKS; b++) {
                            await(mapped.write(at(info, b), 0, ByteBuffer.wrap(pattern(b))));
                        }
                        List<Future<int[]>> workers = new ArrayList<>();
                        for (BlockTransport t : List.of(tcp, mapped)) {
                            long workerSeed = random.nextLong();
                            workers.add(pool.submit(() -> readUntilFailed(t, info, new Random(workerSeed))));
                        }
                        LockSupport.parkNanos(random.nextInt(1_000_000));
                        dram.close();
                        for (Future<int[]> w : workers) {
                            int[] o = w.get(30, TimeUnit.SECONDS);
                            outcomes[0] += o[0];
                            outcomes[1] += o[1];
                        }
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return outcomes;
    }

    /** Reads until a read fails (the server closed); checks every byte read before. */
    private static int[] readUntilFailed(BlockTransport t, StorageServerInfo server, Random r) {
        ByteBuffer direct = ByteBuffer.allocateDirect(BLOCK);
        int done = 0;
        while (true) {
            int block = r.nextInt(SEEDED_BLOCKS);
            ByteBuffer buf = r.nextBoolean() ? direct.clear() : ByteBuffer.allocate(BLOCK);
            try {
                await(t.read(at(server, block), 0, buf));
            } catch (CreelException e) {
                return new int[] {done, 1};
            }
            buf.flip();
            if (!buf.equals(ByteBuffer.wrap(pattern(block)))) {
                throw new AssertionError("block " + block + " read wrong through " + t.name());
            }
            done++;
        }
    }

    /** Reads (and on a writable transport writes) until the transport refuses; checks every byte read. */
    private static int[] transferUntilRefused(BlockTransport t, StorageServerInfo server, boolean writable, Random r) {
        ByteBuffer direct = ByteBuffer.allocateDirect(BLOCK);
        int done = 0;
        while (true) {
            int block = r.nextInt(SEEDED_BLOCKS);
            boolean write = writable && r.nextInt(4) == 0;
            int length = switch (r.nextInt(3)) {
                case 0 -> 4096;
                case 1 -> 40_000;
                default -> BLOCK;
            };
            ByteBuffer buf = r.nextBoolean() ? direct.clear().limit(length) : ByteBuffer.allocate(length);
            CompletableFuture<Void> f;
            if (write) {
                buf.put(pattern(block), 0, length).flip();
                f = t.write(at(server, block), 0, buf);
            } else {
                f = t.read(at(server, block), 0, buf);
            }
            try {
                await(f);
            } catch (CreelException e) {
                if (e.code() != ErrorCode.UNAVAILABLE || !e.getMessage().contains("closed")) {
                    throw new AssertionError("a transfer failed with something else than the close's refusal", e);
                }
                return new int[] {done, 1};
            }
            if (!write) {
                buf.flip();
                byte[] expected = pattern(block);
                for (int i = 0; i < length; i++) {
                    if (buf.get(i) != expected[i]) {
                        throw new AssertionError("block " + block + " byte " + i + " read wrong through " + t.name());
                    }
                }
            }
            done++;
        }
    }

    /**
     * Connects a same-host client, starts reads of a multi-block file and a write of a new one, and
     * closes the client under them: every future must end, with the right bytes or an error.
     */
    static int[] clients(int iterations, Random random, Path scratch) throws Exception {
        int[] outcomes = new int[2];
        try (MiniCluster cluster = MiniCluster.builder().dramDir(dir(scratch, "dram")).diskDir(dir(scratch, "disk"))
                .servers(1, 1).dram(64L * BLOCK).disk(64L * BLOCK)
                .set("creel.block.size", "64k").set("creel.storage.region.size", "256k")
                .set("creel.net.event.loops", "2").set("creel.client.request.timeout", "10s").start()) {
            CreelConf conf = cluster.clientConf().with(LocalTierKeys.LOCAL_ACCESS, "true");
            byte[] content = new byte[FILE_BLOCKS * BLOCK];
            random.nextBytes(content);
            try (CreelClient setup = CreelClient.connect(conf)) {
                CreelNode file = setup.create("/input", NodeType.FILE).join();
                DirectWriter w = file.writer();
                w.write(ByteBuffer.wrap(content)).join();
                w.close().join();
            }
            for (int i = 0; i < iterations; i++) {
                CreelClient client = CreelClient.connect(conf);
                List<CompletableFuture<?>> running = new ArrayList<>();
                List<ByteBuffer> reads = new ArrayList<>();
                CreelNode input = client.lookup("/input").join();
                for (int k = 0; k < 3; k++) {
                    ByteBuffer dst = k == 0 ? ByteBuffer.allocate(content.length) : ByteBuffer.allocateDirect(content.length);
                    reads.add(dst);
                    running.add(input.read(0, dst));
                }
                String out = "/out-" + i;
                List<CompletableFuture<?>> stages = new ArrayList<>();
                CompletableFuture<CreelNode> created = client.create(out, NodeType.FILE);
                stages.add(created);
                CompletableFuture<?> write = created.thenCompose(n -> {
                    DirectWriter w = n.writer();
                    CompletableFuture<Void> wrote = w.write(ByteBuffer.wrap(content, 0, 8 * BLOCK));
                    stages.add(wrote);
                    return wrote.handle((v, t) -> {
                        CompletableFuture<?> closed = w.close();
                        stages.add(closed);
                        return closed;
                    }).thenCompose(c -> c);
                });
                running.add(write);
                LockSupport.parkNanos(random.nextInt(2_000_000));
                client.close();
                for (int k = 0; k < running.size(); k++) {
                    try {
                        running.get(k).get(30, TimeUnit.SECONDS);
                        if (k < reads.size()) {
                            ByteBuffer got = reads.get(k).flip();
                            if (!got.equals(ByteBuffer.wrap(content))) {
                                throw new AssertionError("a read that completed under a close returned wrong bytes");
                            }
                        }
                        outcomes[0]++;
                    } catch (ExecutionException e) {
                        if (!hasCreelCause(e)) {
                            throw new AssertionError("a transfer of a closed client failed without a clear error", e);
                        }
                        outcomes[1]++;
                    } catch (TimeoutException e) {
                        Thread.getAllStackTraces().forEach((t, st) -> {
                            System.out.println("THREAD " + t.getName() + " " + t.getState());
                            for (StackTraceElement el : st) {
                                System.out.println("    at " + el);
                            }
                        });
                        System.out.println("STAGES " + stages);
                        throw new AssertionError("the " + (k < reads.size() ? "read " + k : "write") + " of close "
                                + i + " did not end within 30 s after its client closed", e);
                    }
                }
                if (i % 16 == 15) {
                    try (CreelClient cleaner = CreelClient.connect(conf)) {
                        for (int j = i - 15; j <= i; j++) {
                            cleaner.delete("/out-" + j, false).exceptionally(t -> null).join();
                        }
                    }
                }
            }
        }
        return outcomes;
    }

    private static boolean hasCreelCause(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof CreelException) {
                return true;
            }
        }
        return false;
    }

    private static StorageServer served(StorageServer s) {
        s.serve();
        return s;
    }

    private static BlockTransportProvider provider(String name) {
        for (BlockTransportProvider p : ServiceLoader.load(BlockTransportProvider.class)) {
            if (p.name().equals(name)) {
                return p;
            }
        }
        throw new AssertionError("no transport provider " + name);
    }

    private static BlockLocation at(StorageServerInfo server, long block) {
        return new BlockLocation(1, 0, server, block, TAG);
    }

    static byte[] pattern(int block) {
        byte[] b = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            b[i] = (byte) (block * 31 + i * 7 + (i >> 8));
        }
        return b;
    }

    private static void await(CompletableFuture<?> f) {
        try {
            f.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e);
        } catch (TimeoutException e) {
            throw new AssertionError("a transfer did not end within 30 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static Path dir(Path scratch, String name) throws java.io.IOException {
        return Files.createDirectories(scratch.resolve(name));
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
