package io.creel.multihost;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.client.Futures;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcClient;
import io.creel.common.security.RpcSecurity;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.concurrent.CompletableFuture;

/**
 * A client process for the multi-host tests: performs a scripted write or read through the Java API
 * and reports each step as one line on stdout, which the test waits for.
 *
 * <pre>
 * write PATH BYTES SEED [chunk=N] [pause=MS] [sync=K] [location=HOST] [replication=N] [layout=true]
 * read  PATH SEED [chunk=N] [pause=MS] [loop=true]
 * mkdir PATH [location=HOST]
 * copies PATH N GONE_IP:PORT [within=MS]
 * probe KIND IP:PORT [KIND IP:PORT ...]     (KIND: namenode or storage)
 * </pre>
 *
 * Lines printed: {@code PROGRESS <op> <bytes>} after each chunk, {@code OK <op> <path> <bytes>} at
 * the end, {@code FAILED <op> <path> <CODE> after <ms> ms: <message>} when a step fails (ms counts
 * from the start of the failing step), {@code CORRUPT ...} when read bytes differ from the pattern.
 * Exit code 0 ok, 1 failed, 3 corrupt. With {@code loop=true} a reader reads the whole node again
 * and again (a new lookup each time, the same client) and keeps going after failures.
 *
 * <p>{@code probe} opens a connection of its own to each port, secured as the configuration says
 * (and no more), and sends one request a server of that kind serves (namenode: a lookup of
 * {@code /}; storage: a read of block 0): {@code OK probe IP:PORT answered ...} when the server
 * answers it (an error about the request itself counts: the connection got past the server's
 * security), else {@code FAILED probe IP:PORT <CODE> after <ms> ms: <message>}. Exit 0 when every
 * port answered, else 1.
 *
 * <p>The configuration comes from {@code $CREEL_CONF_DIR/creel-site.conf}. Waits here are far longer
 * than the client's own timeouts, so what the test sees is the client library's behaviour.
 */
public final class ClientDriver {
    static final Duration WAIT = Duration.ofSeconds(120);

    private ClientDriver() {
    }

    public static void main(String[] args) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "info");
        System.setProperty("org.slf4j.simpleLogger.log.io.netty", "warn");
        System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
        System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
        if (args.length < 2) {
            System.err.println("usage: write PATH BYTES SEED [opts] | read PATH SEED [opts] | mkdir PATH [opts]"
                    + " | copies PATH N GONE_IP:PORT [opts] | probe KIND IP:PORT ...");
            System.exit(2);
        }
        Map<String, String> opts = new HashMap<>();
        CreelConf conf = CreelConf.load(CreelConf.locateSiteFile(null), Map.of());
        if (args[0].equals("probe")) {
            int code = probe(conf, args);
            System.out.flush();
            System.exit(code);
        }
        if (args[0].equals("copies")) {
            parseOptions(args, 4, opts);
            int code = awaitCopies(conf, args[1], Integer.parseInt(args[2]), args[3],
                    Long.parseLong(opts.getOrDefault("within", "60000")));
            System.out.flush();
            System.exit(code);
        }
        int code;
        try (CreelClient client = CreelClient.connect(conf)) {
            switch (args[0]) {
                case "write" -> {
                    parseOptions(args, 4, opts);
                    code = write(client, args[1], Long.parseLong(args[2]), Long.parseLong(args[3]), opts);
                }
                case "mkdir" -> {
                    parseOptions(args, 2, opts);
                    code = mkdir(client, args[1], opts);
                }
                case "read" -> {
                    parseOptions(args, 3, opts);
                    code = read(client, args[1], Long.parseLong(args[2]), opts);
                }
                default -> {
                    System.err.println("unknown command " + args[0]);
                    code = 2;
                }
            }
        }
        System.out.flush();
        System.exit(code);
    }

    private static void parseOptions(String[] args, int from, Map<String, String> opts) {
        for (int i = from; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            opts.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
    }

    private static int write(CreelClient client, String path, long bytes, long seed, Map<String, String> opts) {
        int chunk = Integer.parseInt(opts.getOrDefault("chunk", "65536"));
        long pause = Long.parseLong(opts.getOrDefault("pause", "0"));
        int syncEvery = Integer.parseInt(opts.getOrDefault("sync", "0"));
        CreateOptions o = CreateOptions.defaults();
        if (opts.containsKey("location")) {
            o = o.withLocationClass(opts.get("location"));
        }
        if (opts.containsKey("replication")) {
            o = o.withReplication(Integer.parseInt(opts.get("replication")));
        }
        Step step = new Step("write", path);
        try {
            CreelNode node = step.await(client.create(path, NodeType.FILE, o));
            DirectWriter w = node.writer();
            long pos = 0;
            int chunks = 0;
            while (pos < bytes) {
                int n = (int) Math.min(chunk, bytes - pos);
                ByteBuffer buf = ByteBuffer.allocate(n);
                DataPattern.fill(seed, pos, buf);
                buf.flip();
                step.await(w.write(buf));
                pos += n;
                if (syncEvery > 0 && ++chunks % syncEvery == 0) {
                    step.await(w.sync());
                }
                say("PROGRESS write " + pos);
                pause(pause);
            }
            step.await(w.close());
            say("OK write " + path + " " + pos);
            if (Boolean.parseBoolean(opts.getOrDefault("layout", "false"))) {
                CreelNode written = step.await(client.lookup(path));
                for (BlockLocation b : step.await(client.blockLocations(written, 0, written.length()))) {
                    say(layout(b));
                }
            }
            return 0;
        } catch (CreelException e) {
            step.failed(e);
            return 1;
        }
    }

    /** Creates a Directory, its blocks (its records) preferring {@code location=HOST}. */
    private static int mkdir(CreelClient client, String path, Map<String, String> opts) {
        CreateOptions o = CreateOptions.defaults();
        if (opts.containsKey("location")) {
            o = o.withLocationClass(opts.get("location"));
        }
        Step step = new Step("mkdir", path);
        try {
            step.await(client.create(path, NodeType.DIRECTORY, o));
            say("OK mkdir " + path);
            return 0;
        } catch (CreelException e) {
            step.failed(e);
            return 1;
        }
    }

    private static int read(CreelClient client, String path, long seed, Map<String, String> opts) {
        int chunk = Integer.parseInt(opts.getOrDefault("chunk", "65536"));
        long pause = Long.parseLong(opts.getOrDefault("pause", "0"));
        boolean loop = Boolean.parseBoolean(opts.getOrDefault("loop", "false"));
        do {
            Step step = new Step("read", path);
            try {
                CreelNode node = step.await(client.lookup(path));
                DirectReader r = node.reader();
                long pos = 0;
                while (pos < r.length()) {
                    ByteBuffer buf = ByteBuffer.allocate((int) Math.min(chunk, r.length() - pos));
                    int n = step.await(r.read(pos, buf));
                    buf.flip();
                    long bad = DataPattern.firstMismatch(seed, pos, buf);
                    if (bad >= 0) {
                        say("CORRUPT read " + path + " at offset " + bad);
                        return 3;
                    }
                    pos += n;
                    say("PROGRESS read " + pos);
                    pause(pause);
                }
                say("OK read " + path + " " + pos);
                if (!loop) {
                    return 0;
                }
            } catch (CreelException e) {
                step.failed(e);
                if (!loop) {
                    return 1;
                }
            }
            pause(Math.max(pause, 100));
        } while (true);
    }

    private static int probe(CreelConf conf, String[] args) {
        if (args.length % 2 != 1) {
            System.err.println("usage: probe KIND IP:PORT [KIND IP:PORT ...]");
            return 2;
        }
        int failed = 0;
        try (EventLoops loops = EventLoops.create(conf, "probe")) {
            for (int i = 1; i < args.length; i += 2) {
                String kind = args[i];
                HostPort at = HostPort.parse(args[i + 1]);
                Step step = new Step("probe", at.host() + ":" + at.port());
                try {
                    RpcClient rpc = step.await(RpcClient.connect(at, loops, 1 << 20,
                            conf.get(ConfKeys.CLIENT_CONNECT_TIMEOUT), conf.get(ConfKeys.CLIENT_REQUEST_TIMEOUT),
                            RpcSecurity.of(conf)));
                    try (rpc) {
                        say("OK probe " + at.host() + ":" + at.port() + " answered " + step.await(ask(rpc, kind)));
                    }
                } catch (CreelException e) {
                    if (e.code() == ErrorCode.UNAUTHENTICATED || e.code() == ErrorCode.TIMEOUT
                            || e.code() == ErrorCode.UNAVAILABLE) {
                        step.failed(e);
                        failed++;
                    } else {
                        // The server read the request and refused what it asked: the connection was served.
                        say("OK probe " + at.host() + ":" + at.port() + " answered " + e.code() + ": " + e.getMessage());
                    }
                }
            }
        }
        return failed == 0 ? 0 : 1;
    }

    /** Polls, each time with a new client, until every block of {@code path} has {@code copies} copies, none on {@code gone}. */
    private static int awaitCopies(CreelConf conf, String path, int copies, String gone, long withinMillis) {
        Step step = new Step("copies", path);
        long start = System.nanoTime();
        long deadline = start + withinMillis * 1_000_000;
        while (true) {
            List<BlockLocation> blocks;
            try (CreelClient fresh = CreelClient.connect(conf)) {
                CreelNode node = step.await(fresh.lookup(path));
                blocks = step.await(fresh.blockLocations(node, 0, node.length()));
            } catch (CreelException e) {
                step.failed(e);
                return 1;
            }
            List<String> shortOf = blocks.stream().filter(b -> b.copyCount() != copies
                    || b.copies().stream().anyMatch(c -> c.server().address().equals(gone))).map(ClientDriver::layout)
                    .toList();
            if (shortOf.isEmpty()) {
                say("OK copies " + path + " " + copies + " after " + (System.nanoTime() - start) / 1_000_000 + " ms");
                blocks.forEach(b -> say(layout(b)));
                return 0;
            }
            if (System.nanoTime() > deadline) {
                say("FAILED copies " + path + " TIMEOUT after " + (System.nanoTime() - start) / 1_000_000 + " ms: "
                        + shortOf.size() + " block(s) without " + copies + " copies off " + gone + ", e.g. "
                        + shortOf.get(0));
                return 1;
            }
            pause(200);
        }
    }

    /** {@code BLOCK <index> <ip:port>,...}: where a block's copies are, first copy first. */
    private static String layout(BlockLocation b) {
        return "BLOCK " + b.blockIndex() + " " + b.copies().stream().map(c -> c.server().address())
                .collect(Collectors.joining(","));
    }

    private static CompletableFuture<String> ask(RpcClient rpc, String kind) {
        return switch (kind) {
            case "namenode" -> rpc.call(Opcode.LOOKUP, new LookupRequest("/", false), body -> "a lookup of /");
            case "storage" -> rpc.call(Opcode.BLOCK_READ, new BlockReadRequest(0, 0, 0, 1), body -> "a block read");
            default -> throw new IllegalArgumentException("probe: KIND is namenode or storage, not " + kind);
        };
    }

    /** One operation: times each step and reports a failure with the time its step took. */
    private static final class Step {
        private final String op;
        private final String path;
        private long started;

        Step(String op, String path) {
            this.op = op;
            this.path = path;
        }

        <T> T await(CompletableFuture<T> f) {
            started = System.nanoTime();
            return Futures.await(f, WAIT, op + " " + path);
        }

        void failed(CreelException e) {
            long ms = (System.nanoTime() - started) / 1_000_000;
            say("FAILED " + op + " " + path + " " + e.code() + " after " + ms + " ms: " + e.getMessage());
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
