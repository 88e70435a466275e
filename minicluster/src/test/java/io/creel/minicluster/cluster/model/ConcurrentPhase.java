package io.creel.minicluster.cluster.model;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The promises that only show under concurrency, each kept by one writer against two readers:
 * a KeyValue replaced over and over is read whole, old or new, never a mix and never going back;
 * a File appended and synced is read up to its synced length with the right bytes, a length that
 * never shrinks; a Directory gaining children is listed without failing, showing every child whose
 * create has returned. Writers may run out of space (then they stop); readers may not fail.
 */
final class ConcurrentPhase {
    private static final int READERS = 2;
    private static final long WAIT_SECONDS = 120;

    private final CreelClient client;
    private final long seed;
    private final int blockSize;
    private final int rounds;
    private final AtomicBoolean writersDone = new AtomicBoolean();
    /** Scenarios that found no space to start in. */
    private final AtomicInteger skipped = new AtomicInteger();

    ConcurrentPhase(CreelClient client, long seed, int blockSize, int rounds) {
        this.client = client;
        this.seed = seed;
        this.blockSize = blockSize;
        this.rounds = rounds;
    }

    /** Runs the three scenarios at once; returns what they did, or throws the first broken promise. */
    String run() {
        String tag = Long.toHexString(seed & 0xffffff);
        ExecutorService pool = Executors.newFixedThreadPool(3 * (1 + READERS), r -> {
            Thread t = new Thread(r, "model-concurrent");
            t.setDaemon(true);
            return t;
        });
        try {
            Values values = new Values("/kv-" + tag);
            Appends appends = new Appends("/app-" + tag);
            Children children = new Children("/dir-" + tag);
            List<Future<?>> writers = List.of(pool.submit(values::write), pool.submit(appends::write),
                    pool.submit(children::write));
            List<Future<?>> readers = new ArrayList<>();
            for (int i = 0; i < READERS; i++) {
                readers.add(pool.submit(values::read));
                readers.add(pool.submit(appends::read));
                readers.add(pool.submit(children::read));
            }
            try {
                for (Future<?> w : writers) {
                    await(w);
                }
            } finally {
                writersDone.set(true);
            }
            for (Future<?> r : readers) {
                await(r);
            }
            return "kv: " + values.versions + " versions, " + values.reads + " reads (" + values.outlived
                    + " handles outlived their version); append: " + appends.length
                    + " bytes, " + appends.reads + " reads; list: " + children.created + " children, "
                    + children.listings + " listings" + (skipped.get() == 0 ? "" : "; " + skipped + " scenario(s) "
                    + "found no space to start");
        } finally {
            writersDone.set(true);
            pool.shutdownNow();
        }
    }

    private static void await(Future<?> f) {
        try {
            f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AssertionError a) {
                throw a;
            }
            throw new AssertionError("concurrent phase: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("concurrent phase: a task did not finish within " + WAIT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static <T> T get(CompletableFuture<T> f) {
        try {
            return f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("a call did not complete within " + WAIT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Runs a scenario's first create; false if there was no space for it (the scenario is skipped). */
    private boolean setUp(Runnable create) {
        try {
            create.run();
            return true;
        } catch (CreelException e) {
            if (!outOfSpace(e)) {
                throw new AssertionError("concurrent phase: setting up failed: " + e, e);
            }
            skipped.incrementAndGet();
            return false;
        }
    }

    private static boolean outOfSpace(CreelException e) {
        return e.code() == ErrorCode.OUT_OF_SPACE;
    }

    /** Sizes around block boundaries. */
    private int size(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> blockSize;
            case 1 -> blockSize + 1;
            case 2 -> 2 * blockSize - 1;
            default -> 8 + r.nextInt(2 * blockSize);
        };
    }

    /** A KeyValue replaced by one writer, read by others. */
    private final class Values {
        final String table;
        final AtomicInteger versions = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();
        /** Reads through a handle whose version had been replaced and freed meanwhile. */
        final AtomicInteger outlived = new AtomicInteger();

        Values(String table) {
            this.table = table;
        }

        void write() {
            if (!setUp(() -> get(client.create(table, NodeType.TABLE)))) {
                return;
            }
            Random r = new Random(seed + 1);
            for (int v = 1; v <= rounds; v++) {
                try {
                    get(client.putValue(table, "k", ByteBuffer.wrap(value(v, Math.max(8, size(r))))));
                    versions.set(v);
                } catch (CreelException e) {
                    if (!outOfSpace(e)) {
                        throw new AssertionError(table + "/k: version " + v + " failed: " + e, e);
                    }
                }
            }
        }

        /** What one reader saw last: values never go back for it. */
        private static final class Seen {
            long last;
            boolean viaStream;
        }

        void read() {
            Seen seen = new Seen();
            boolean done;
            do {
                done = writersDone.get(); // one more read after the writer finished
                readOnce(seen);
            } while (!done);
        }

        private void readOnce(Seen seen) {
            ByteBuffer got;
            boolean handle = seen.viaStream;
            seen.viaStream = !seen.viaStream;
            int committedBefore = versions.get(); // before the call: a put may commit while it runs
            try {
                got = handle ? readAll(get(client.lookup(table + "/k"))) : get(client.getValue(table, "k"));
            } catch (CreelException e) {
                if (e.code() == ErrorCode.NOT_FOUND && committedBefore == 0) {
                    return; // nothing committed yet
                }
                if (handle && (e.code() == ErrorCode.NOT_FOUND || e.code() == ErrorCode.STALE_BLOCK)) {
                    // A handle names one version; once replaced and past the reuse delay it is gone.
                    // A get, by contrast, answers for the key and must not fail.
                    outlived.incrementAndGet();
                    return;
                }
                throw new AssertionError(table + "/k: a " + (handle ? "read through a lookup" : "get")
                        + " failed while the value was being replaced: " + e, e);
            }
            reads.incrementAndGet();
            long v = check(got);
            if (v < seen.last) {
                throw new AssertionError(table + "/k: read version " + v + " after version " + seen.last
                        + ": a committed value went back");
            }
            seen.last = v;
        }

        private byte[] value(long v, int size) {
            byte[] b = Content.of(v, 0, size).data();
            ByteBuffer.wrap(b).putLong(0, v);
            return b;
        }

        /** The version a value carries, once its every byte is that version's. */
        private long check(ByteBuffer got) {
            if (got.remaining() < 8) {
                throw new AssertionError(table + "/k: a value of " + got.remaining() + " bytes: not one that was put");
            }
            long v = got.getLong(got.position());
            byte[] want = value(v, got.remaining());
            byte[] have = new byte[got.remaining()];
            got.duplicate().get(have);
            int diff = java.util.Arrays.mismatch(want, have);
            if (v < 1 || v > rounds || diff >= 0) {
                throw new AssertionError(table + "/k: read a value of " + have.length + " bytes that is not version " + v
                        + " whole (first wrong byte " + diff + "): a mix of versions or foreign bytes");
            }
            return v;
        }
    }

    private static ByteBuffer readAll(CreelNode node) {
        ByteBuffer dst = ByteBuffer.allocate((int) node.length());
        int n = node.length() == 0 ? 0 : get(node.read(0, dst));
        if (n != node.length() && node.length() > 0) {
            throw new AssertionError(node.path() + ": read " + n + " of " + node.length() + " bytes");
        }
        return dst.flip();
    }

    /** A File appended and synced by one writer, read by others. */
    private final class Appends {
        final String path;
        final AtomicLong length = new AtomicLong();
        final AtomicInteger reads = new AtomicInteger();
        final long id = seed * 7 + 3;

        Appends(String path) {
            this.path = path;
        }

        void write() {
            CreelNode[] created = new CreelNode[1];
            if (!setUp(() -> created[0] = get(client.create(path, NodeType.FILE)))) {
                return;
            }
            DirectWriter w = created[0].writer();
            Random r = new Random(seed + 2);
            long at = 0;
            try {
                for (int i = 0; i < rounds; i++) {
                    int n = size(r);
                    get(w.write(ByteBuffer.wrap(Content.of(id, at, n).data())));
                    at += n;
                    if (i % 2 == 1) {
                        get(w.sync());
                        length.set(at);
                    }
                }
                get(w.close());
                length.set(at);
            } catch (CreelException e) {
                if (!outOfSpace(e)) {
                    throw new AssertionError(path + ": appending at " + at + " failed: " + e, e);
                }
                w.close().exceptionally(t -> null);
            }
        }

        void read() {
            long[] last = {0}; // this reader's: the synced length never goes back for it
            boolean done;
            do {
                done = writersDone.get(); // one more read after the writer finished
                readOnce(last);
            } while (!done);
        }

        private void readOnce(long[] last) {
            CreelNode node;
            try {
                node = get(client.lookup(path));
            } catch (CreelException e) {
                if (e.code() == ErrorCode.NOT_FOUND) {
                    return; // not created yet
                }
                throw new AssertionError(path + ": a lookup failed while it was appended to: " + e, e);
            }
            long len = node.length();
            if (len < last[0]) {
                throw new AssertionError(path + ": synced length went from " + last[0] + " back to " + len);
            }
            last[0] = len;
            ByteBuffer got;
            try {
                got = readAll(node);
            } catch (CreelException e) {
                throw new AssertionError(path + ": reading " + len + " synced bytes failed: " + e, e);
            }
            reads.incrementAndGet();
            byte[] have = new byte[got.remaining()];
            got.get(have);
            int diff = java.util.Arrays.mismatch(Content.of(id, 0, have.length).data(), have);
            if (diff >= 0) {
                throw new AssertionError(path + ": byte " + diff + " of " + len + " synced bytes is wrong");
            }
        }
    }

    /** A Directory gaining children from one creator, listed by others. */
    private final class Children {
        final String dir;
        final AtomicInteger created = new AtomicInteger();
        final AtomicInteger attempted = new AtomicInteger();
        final AtomicInteger listings = new AtomicInteger();

        Children(String dir) {
            this.dir = dir;
        }

        void write() {
            if (!setUp(() -> get(client.create(dir, NodeType.DIRECTORY)))) {
                return;
            }
            for (int i = 0; i < 2 * rounds; i++) {
                attempted.set(i + 1);
                try {
                    if (i % 2 == 0) {
                        get(client.create(dir + "/c" + i, NodeType.DIRECTORY));
                    } else {
                        get(get(client.create(dir + "/c" + i, NodeType.FILE)).writer().close());
                    }
                    created.set(i + 1);
                } catch (CreelException e) {
                    if (!outOfSpace(e)) {
                        throw new AssertionError(dir + "/c" + i + ": create failed: " + e, e);
                    }
                    return;
                }
            }
        }

        void read() {
            boolean done;
            do {
                done = writersDone.get(); // one more listing after the creator finished
                listOnce();
            } while (!done);
        }

        private void listOnce() {
            {
                int before = created.get();
                List<DirectoryEntry> listed;
                try {
                    listed = get(client.list(dir));
                } catch (CreelException e) {
                    if (e.code() == ErrorCode.NOT_FOUND && before == 0) {
                        return; // not created yet
                    }
                    throw new AssertionError(dir + ": a listing failed while children were created: " + e, e);
                }
                listings.incrementAndGet();
                int limit = attempted.get();
                Set<String> names = new HashSet<>();
                for (DirectoryEntry e : listed) {
                    if (!names.add(e.name())) {
                        throw new AssertionError(dir + ": " + e.name() + " listed twice");
                    }
                    int i = e.name().startsWith("c") ? parse(e.name().substring(1)) : -1;
                    if (i < 0 || i >= limit) {
                        throw new AssertionError(dir + ": listed " + e.name() + ", which was never created");
                    }
                }
                for (int i = 0; i < before; i++) {
                    if (!names.contains("c" + i)) {
                        throw new AssertionError(dir + ": c" + i + " was created before the listing began but is "
                                + "not in it (" + listed.size() + " listed)");
                    }
                }
            }
        }

        private static int parse(String s) {
            try {
                return Integer.parseInt(s);
            } catch (NumberFormatException e) {
                return -1;
            }
        }
    }
}
