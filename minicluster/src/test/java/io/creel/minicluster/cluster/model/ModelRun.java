package io.creel.minicluster.cluster.model;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.client.DirectoryEntry;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.minicluster.MiniCluster;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * One seed's run: a cluster of the seed's {@link ClusterShape}, {@code ops} generated operations
 * each checked against the {@link ModelNamespace}, a check of everything at the end, then the
 * {@link ConcurrentPhase}. The first disagreement ends the run with a {@link Mismatch} that carries
 * the trace.
 */
final class ModelRun {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ModelRun.class);
    /** Operations between full checks of every node. */
    private static final int CHECK_EVERY = 50;
    /** Longest wait for one call (the cluster's request timeout is 20 s). */
    private static final long CALL_SECONDS = 60;
    /** Errors allowed wherever the model expects success and the call may need a new block. */
    private static final Set<ErrorCode> SPACE = Set.of(ErrorCode.OUT_OF_SPACE);

    /** The run disagreed with the model (or broke a promise in the concurrent phase). */
    static final class Mismatch extends AssertionError {
        private static final long serialVersionUID = 1L;

        Mismatch(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** The File whose writer is kept open across steps. */
    private static final class Held {
        String path;
        CreelNode node;
        DirectWriter writer;
        /** Everything written so far (the published bytes, then what was written since). */
        Bytes written;
        /** The first failure: every later call of the writer fails with it. */
        ErrorCode failed;
        /** Its File was removed: what the writer does now is not the model's business, only that it ends. */
        boolean orphan;
    }

    private final long seed;
    private final int ops;
    private final boolean chaosMode;
    /** Copies of each block of a File or KeyValue (the namenodes' factor); above 1 only with chaos. */
    private final int replication;
    private final ClusterShape shape;
    /** The chaos mode's faults and what they allow; {@code null} without it. */
    private Chaos chaos;
    /** Clear errors about data whose server the chaos killed. */
    private int lostToChaos;
    /** Mutations whose outcome a fault made unknown, settled by looking the node up. */
    private int resynced;
    /** Faults struck with operations of a third client in flight. */
    private int inFlightFaults;
    private final List<String> trace = new ArrayList<>();
    private ModelNamespace model;
    private CreelClient client;
    private Held held;
    private int recentOutOfSpace;
    private int outOfSpace;
    private int refusals;
    /** Refusals by error code, as the model predicted them. */
    private final java.util.TreeMap<ErrorCode, Integer> refusedAs = new java.util.TreeMap<>();

    ModelRun(long seed, int ops, boolean chaos) {
        this(seed, ops, chaos, 1);
    }

    /**
     * A run with chaos whose Files and KeyValues have {@code replication} copies of each block (the
     * replication mode when above 1): servers die one at a time, and no data may be lost.
     */
    ModelRun(long seed, int ops, boolean chaos, int replication) {
        if (replication > 1 && !chaos) {
            throw new IllegalArgumentException("the replication mode runs with chaos");
        }
        this.seed = seed;
        this.ops = ops;
        this.chaosMode = chaos;
        this.replication = replication;
        this.shape = ClusterShape.of(seed);
    }

    /** Statistics of a finished run, for the log. */
    record Summary(long seed, ClusterShape shape, int ops, int outOfSpace, int refusals, String refusedAs,
                   String concurrent, String chaos) {
    }

    Summary run() {
        trace.add("cluster: " + shape + (replication > 1 ? "; replication " + replication + " over " + (replication + 1)
                + " hosts" : "") + (chaosMode ? "; chaos, " + (Chaos.persistent(seed) ? "persistent" : "volatile")
                + " storage servers; client 1 local access " + shape.localAccess() + ", client 2 "
                + !shape.localAccess() : ""));
        java.nio.file.Path logDir = null;
        try {
            if (chaosMode) {
                logDir = java.nio.file.Files.createTempDirectory("creel-model-log");
            }
            return run(logDir);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } finally {
            deleteTree(logDir);
        }
    }

    private Summary run(java.nio.file.Path logDir) {
        try (MiniCluster cluster = shape.start(chaosMode ? Chaos.settings(seed, logDir.toString(), replication)
                : java.util.Map.of(), replication);
             Chaos c = chaosMode ? new Chaos(seed, cluster, replication) : null;
             // In the chaos mode one client maps same-host servers' files and the other goes over TCP,
             // so a killed server is met on both paths whatever the shape says.
             CreelClient first = CreelClient.connect(c != null ? c.clientConf(shape.localAccess()) : cluster.clientConf());
             CreelClient second = CreelClient.connect(c != null ? c.clientConf(!shape.localAccess())
                     : cluster.clientConf())) {
            chaos = c;
            // Two clients take turns, so one's caches (block locations, values seen) meet the other's changes.
            CreelClient[] clients = {first, second};
            Random turns = new Random(seed + 17);
            client = first;
            model = new ModelNamespace(shape.namenodes());
            OperationGenerator generator = new OperationGenerator(new Random(seed * 0x9E3779B97F4A7C15L),
                    shape.blockSize(), model);
            for (int step = 0; step < ops; step++) {
                if (chaos != null) {
                    chaosStep(step); // first: a fault may end the held writer the next operation would use
                }
                Operation op = generator.next(held != null, held == null || held.orphan ? null : held.path,
                        recentOutOfSpace > 0);
                recentOutOfSpace = Math.max(0, recentOutOfSpace - 1);
                int who = turns.nextInt(clients.length);
                client = clients[who];
                trace.add(step + ": " + (who == 0 ? "" : "[client 2] ") + op);
                execute(op);
                if (step % CHECK_EVERY == CHECK_EVERY - 1) {
                    checkAll();
                }
            }
            if (chaos != null) {
                String back = chaos.restartDue(ops, true);
                if (back != null) {
                    trace.add("end: chaos: " + back);
                }
            }
            if (held != null) {
                trace.add("end: close the held writer");
                execute(new Operation.HeldClose());
            }
            trace.add("end: check everything");
            checkAll();
            if (chaos != null && chaos.replicated()) {
                checkNothingLost();
            }
            trace.add("end: remove everything, for the concurrent phase");
            for (String top : List.copyOf(model.find("/").children.keySet())) {
                expect(new Operation.Delete("/" + top, true), Outcome.ok(model.find("/" + top).type.displayName()),
                        call(() -> client.delete("/" + top, true), info -> info.type().displayName()), Set.of());
                model.deleted("/" + top);
            }
            Thread.sleep(shape.reuseDelayMillis() + 50L); // the freed blocks are free again
            if (chaos != null) {
                chaos.awaitQuiet();
            }
            trace.add("concurrent phase");
            String concurrent = new ConcurrentPhase(client, seed, shape.blockSize(), Math.max(20, ops / 10)).run();
            return new Summary(seed, shape, ops, outOfSpace, refusals, refusedAs.toString(), concurrent,
                    chaos == null ? "no chaos" : chaos.summary() + ", " + inFlightFaults + " with a third client's calls in "
                            + "flight; " + lostToChaos + " clear errors about lost data, " + resynced
                            + " mutations of unknown outcome looked up");
        } catch (Mismatch m) {
            throw m;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw mismatch("interrupted", e);
        } catch (RuntimeException | AssertionError e) {
            throw mismatch("the run broke off: " + e, e);
        }
    }

    // ------------------------------------------------------------------ operations

    private void execute(Operation op) {
        if (op instanceof Operation.Create o) {
            create(o);
        } else if (op instanceof Operation.WriteFile o) {
            writeFile(o);
        } else if (op instanceof Operation.Append o) {
            append(o);
        } else if (op instanceof Operation.PutValue o) {
            putValue(o);
        } else if (op instanceof Operation.GetValue o) {
            String path = join(o.table(), o.key());
            Outcome expected = refusePath(path) != null ? Outcome.fail(refusePath(path)) : model.getValue(path);
            Outcome got = call(() -> client.getValue(o.table(), o.key()), ModelRun::bytesOf);
            noLoss(o.toString(), got);
            expect(o, expected, got, Set.of(), path);
        } else if (op instanceof Operation.Read o) {
            read(o);
        } else if (op instanceof Operation.Delete o) {
            delete(o);
        } else if (op instanceof Operation.Move o) {
            move(o);
        } else if (op instanceof Operation.Listing o) {
            Outcome expected = refusePath(o.path()) != null ? Outcome.fail(refusePath(o.path())) : model.list(o.path());
            expect(o, expected, call(() -> client.list(o.path()), ModelRun::names), Set.of(), o.path());
        } else if (op instanceof Operation.BagRead o) {
            bagRead(o);
        } else if (op instanceof Operation.Hold o) {
            hold(o);
        } else if (op instanceof Operation.HeldWrite o) {
            heldWrite(o);
        } else if (op instanceof Operation.HeldClose) {
            heldClose();
        } else if (op instanceof Operation.BadPath o) {
            expect(o, Outcome.fail(o.expected()), call(() -> client.create(o.path(), NodeType.DIRECTORY),
                    n -> "created"), Set.of());
            expect(o, Outcome.fail(o.expected()), call(() -> client.lookup(o.path()), n -> "found"), Set.of());
        } else if (op instanceof Operation.CheckAll) {
            checkAll();
        } else {
            throw new IllegalArgumentException("unknown operation " + op);
        }
    }

    private void create(Operation.Create o) {
        ErrorCode refused = refusePath(o.path());
        refused = refused != null ? refused : model.refuseCreate(o.path(), o.type(), o.storageClass());
        CreateOptions options = CreateOptions.defaults().withStorageClass(o.storageClass()).withEnumerable(o.enumerable());
        Outcome actual = call(() -> client.create(o.path(), o.type(), options), n -> n.type().displayName());
        if (refused == null && unknown(o, actual)) {
            resyncNode(o.path(), o.type(), o.enumerable());
            return;
        }
        if (expect(o, refused != null ? Outcome.fail(refused) : Outcome.ok(o.type().displayName()), actual, SPACE)) {
            model.created(o.path(), o.type(), o.enumerable());
        }
    }

    private void writeFile(Operation.WriteFile o) {
        ErrorCode refused = refusePath(o.path());
        refused = refused != null ? refused : model.refuseCreate(o.path(), NodeType.FILE, o.storageClass());
        CreateOptions options = CreateOptions.defaults().withStorageClass(o.storageClass());
        CreelNode[] node = new CreelNode[1];
        Outcome created = call(() -> client.create(o.path(), NodeType.FILE, options), n -> {
            node[0] = n;
            return "File";
        });
        if (refused == null && unknown(o, created)) {
            resyncFile(o.path(), List.of(Bytes.EMPTY), false);
            return;
        }
        if (!expect(o, refused != null ? Outcome.fail(refused) : Outcome.ok("File"), created, SPACE)) {
            return;
        }
        model.created(o.path(), NodeType.FILE, true);
        writeAndClose(o, o.path(), node[0], Bytes.EMPTY, o.sizes(), o.pipelined(), o.syncAfter(), o.content());
    }

    private void append(Operation.Append o) {
        ErrorCode refused = refusePath(o.path());
        refused = refused != null ? refused : model.refuseOpenForAppend(o.path());
        CreelNode[] node = new CreelNode[1];
        Outcome opened = call(() -> client.openForAppend(o.path()), n -> {
            node[0] = n;
            return "opened";
        });
        if (refused == null && unknown(o, opened)) {
            resyncFile(o.path(), List.of(model.find(o.path()).data), true); // and wait out a lease it may have taken
            return;
        }
        if (!expect(o, refused != null ? Outcome.fail(refused) : Outcome.ok("opened"), opened, Set.of())) {
            return;
        }
        writeAndClose(o, o.path(), node[0], model.find(o.path()).data, o.sizes(), o.pipelined(), o.syncAfter(),
                o.content());
    }

    /**
     * Writes {@code sizes} to a File just opened with {@code base} published, syncs after write
     * {@code syncAfter}, closes; then the model holds what was published: everything, or — when a
     * write ran out of space — what the last sync before the failure published.
     */
    private void writeAndClose(Operation o, String path, CreelNode node, Bytes base, int[] sizes, boolean pipelined,
                               int syncAfter, long content) {
        ModelNamespace.Node file = model.find(path);
        file.leased = true;
        DirectWriter w = node.writer();
        Bytes written = base;
        Bytes published = base;
        ErrorCode failed = null;
        List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        for (int i = 0; i < sizes.length && failed == null; i++) {
            Bytes chunk = Content.of(content * 31 + i, written.length(), sizes[i]);
            CompletableFuture<Void> write = w.write(ByteBuffer.wrap(chunk.data()));
            written = written.concat(chunk);
            if (pipelined) {
                inFlight.add(write);
            } else {
                failed = failure(o, "write " + i, call(() -> write, v -> "done"));
            }
            if (i == syncAfter && failed == null) {
                for (CompletableFuture<Void> f : inFlight) {
                    failed = failed != null ? failed : failure(o, "write", call(() -> f, v -> "done"));
                }
                inFlight.clear();
                Bytes upTo = written;
                ErrorCode syncFailed = failure(o, "sync", call(w::sync, info -> "synced"));
                if (failed == null && syncFailed == null) {
                    published = upTo;
                    file.data = published;
                    checkLength(o, path, published.length());
                }
                failed = failed != null ? failed : syncFailed;
            }
        }
        for (CompletableFuture<Void> f : inFlight) {
            failed = failed != null ? failed : failure(o, "write", call(() -> f, v -> "done"));
        }
        Outcome closed = call(w::close, info -> info.length());
        file.leased = false;
        if (chaos != null && !closed.is(ErrorCode.OUT_OF_SPACE)
                && (failed != null && failed != ErrorCode.OUT_OF_SPACE || closed.failed() && unknown(o, closed))) {
            // A killed server broke the writer: the File holds what was published before, or
            // everything if the close got through.
            resyncFile(path, List.of(published, written), true);
            return;
        }
        if (failed == null) {
            if (expect(o, Outcome.ok((long) written.length()), closed, SPACE)) {
                published = written;
            }
        } else {
            expect(o, Outcome.fail(failed), closed, Set.of());
        }
        file.data = published;
        checkLength(o, path, published.length());
    }

    /** The space error a write step failed with ({@code null}: it succeeded); anything else is a mismatch. */
    private ErrorCode failure(Operation o, String step, Outcome actual) {
        if (!actual.failed()) {
            return null;
        }
        if (actual.is(ErrorCode.OUT_OF_SPACE)) {
            noteOutOfSpace();
            return actual.error();
        }
        noLoss(o + ": " + step, actual);
        if (chaos != null && (allowedLoss(actual) || unknown(o, actual))) {
            return actual.error();
        }
        throw mismatch(o + ": " + step + " expected to succeed (or run out of space), got " + actual, null);
    }

    private void putValue(Operation.PutValue o) {
        String path = join(o.table(), o.key());
        ErrorCode refused = refusePath(path);
        refused = refused != null ? refused : model.refuseCreate(path, NodeType.KEYVALUE, "");
        Bytes value = Content.of(o.content(), 0, o.size());
        Outcome actual = call(() -> client.putValue(o.table(), o.key(), ByteBuffer.wrap(value.data())), v -> "put");
        if (refused == null && unknown(o, actual)) {
            // Applied or not: the key holds the new value, or what it held before.
            ModelNamespace.Node old = model.find(path);
            Outcome now = call(() -> client.getValue(o.table(), o.key()), ModelRun::bytesOf);
            if (now.sameAs(Outcome.ok(value))) {
                model.putValue(path, value);
            } else if (old != null && now.failed() && allowedLoss(now)) {
                return; // the old value's server died: the key still names the old version, unreadable
            } else if (!now.sameAs(old == null ? Outcome.fail(ErrorCode.NOT_FOUND) : Outcome.ok(old.data))) {
                throw mismatch(o + ": after its put failed " + actual + ", the key holds neither the new value nor the "
                        + "old one: " + now, null);
            }
            return;
        }
        if (expect(o, refused != null ? Outcome.fail(refused) : Outcome.ok("put"), actual, SPACE)) {
            model.putValue(path, value);
        }
    }

    private void read(Operation.Read o) {
        Outcome expected = refusePath(o.path()) != null ? Outcome.fail(refusePath(o.path()))
                : model.read(o.path(), o.offset(), o.length());
        Outcome actual = call(() -> client.lookup(o.path()).thenCompose(n -> {
            ByteBuffer dst = ByteBuffer.allocate(o.length());
            return n.read(o.offset(), dst).thenApply(k -> k < 0 ? (Object) (-1) : new Bytes(
                    java.util.Arrays.copyOf(dst.array(), k)));
        }), v -> v);
        noLoss(o.toString(), actual);
        expect(o, expected, actual, Set.of(), o.path());
    }

    private void delete(Operation.Delete o) {
        ErrorCode refused = refusePath(o.path());
        refused = refused != null ? refused : model.refuseDelete(o.path(), o.recursive());
        Outcome actual = call(() -> client.delete(o.path(), o.recursive()), info -> info.type().displayName());
        Outcome expected = refused != null ? Outcome.fail(refused)
                : Outcome.ok(model.find(o.path()).type.displayName());
        boolean gone = refused == null && unknown(o, actual)
                ? lookupSettled(o.path(), n -> "found").is(ErrorCode.NOT_FOUND)
                : expect(o, expected, actual, Set.of());
        if (gone) {
            model.deleted(o.path());
            if (held != null && !held.orphan && within(held.path, o.path())) {
                held.orphan = true;
            }
        }
    }

    private void move(Operation.Move o) {
        ErrorCode refused = refusePath(o.source());
        refused = refused != null ? refused : refusePath(o.target());
        refused = refused != null ? refused : model.refuseMove(o.source(), o.target());
        Outcome actual = call(() -> client.move(o.source(), o.target()), n -> n.type().displayName());
        Outcome expected = refused != null ? Outcome.fail(refused)
                : Outcome.ok(model.find(o.source()).type.displayName());
        boolean moved = refused == null && unknown(o, actual)
                ? lookupSettled(o.source(), n -> "found").is(ErrorCode.NOT_FOUND)
                        && !lookupSettled(o.target(), n -> "found").failed()
                : expect(o, expected, actual, SPACE);
        if (moved) {
            model.moved(o.source(), o.target());
            if (held != null && !held.orphan && within(held.path, o.source())) {
                held.path = o.target() + held.path.substring(o.source().length());
            }
        }
    }

    private void bagRead(Operation.BagRead o) {
        ErrorCode refused = refusePath(o.path());
        if (refused != null) {
            expect(o, Outcome.fail(refused), call(() -> client.lookup(o.path()), n -> "found"), Set.of());
            return;
        }
        ModelNamespace.Node n = model.find(o.path());
        if (n == null || n.type != NodeType.BAG) {
            Outcome expected = n == null ? model.list(o.path()) : Outcome.fail(ErrorCode.INVALID_ARGUMENT);
            expect(o, expected, call(() -> client.lookup(o.path()).thenApply(CreelNode::bagReader), r -> "a reader"),
                    Set.of());
            return;
        }
        Outcome listed = call(() -> client.list(o.path()), entries -> entries.stream().map(DirectoryEntry::name).toList());
        if (listed.failed() && allowedLoss(listed)) {
            return;
        }
        if (listed.failed()) {
            throw mismatch(o + ": listing the Bag failed: " + listed, null);
        }
        @SuppressWarnings("unchecked")
        List<String> order = (List<String>) listed.value();
        CreelNode[] bag = new CreelNode[1];
        Outcome looked = call(() -> client.lookup(o.path()), n2 -> {
            bag[0] = n2;
            return "found";
        });
        expect(o, Outcome.ok("found"), looked, Set.of(), o.path());
        Outcome actual;
        // A blocking stream, read on this thread (never in a callback: that would block an event loop).
        try (InputStream in = bag[0].bagStream()) {
            actual = Outcome.ok(new Bytes(in.readAllBytes()));
        } catch (IOException e) {
            actual = Outcome.of(CreelException.unwrap(e.getCause() != null ? e.getCause() : e));
        }
        expect(o, model.bag(o.path(), order), actual, Set.of(), o.path());
    }

    private void hold(Operation.Hold o) {
        ErrorCode refused = refusePath(o.path());
        refused = refused != null ? refused : model.refuseOpenForAppend(o.path());
        CreelNode[] node = new CreelNode[1];
        Outcome opened = call(() -> client.openForAppend(o.path()), n -> {
            node[0] = n;
            return "opened";
        });
        if (refused == null && unknown(o, opened)) {
            resyncFile(o.path(), List.of(model.find(o.path()).data), true); // and wait out a lease it may have taken
            return;
        }
        if (!expect(o, refused != null ? Outcome.fail(refused) : Outcome.ok("opened"), opened, Set.of())) {
            return;
        }
        if (held != null) {
            throw mismatch(o + ": a second writer was let in while " + held.path + " is held", null);
        }
        held = new Held();
        held.path = o.path();
        held.node = node[0];
        held.writer = node[0].writer();
        held.written = model.find(o.path()).data;
        model.find(o.path()).leased = true;
    }

    private void heldWrite(Operation.HeldWrite o) {
        Bytes chunk = Content.of(o.content(), held.written.length(), o.size());
        Outcome wrote = call(() -> held.writer.write(ByteBuffer.wrap(chunk.data())), v -> "done");
        if (held.orphan) {
            // Its File is gone: a write may land in blocks it still holds, or fail; either is fine,
            // but a failed writer stays failed.
            if (held.failed == null && wrote.failed()) {
                held.failed = wrote.error();
            }
            return;
        }
        if (held.failed != null) {
            expect(o, Outcome.fail(held.failed), wrote, Set.of());
            return;
        }
        if (wrote.failed()) {
            held.failed = failure(o, "write", wrote);
            if (chaos != null && held.failed != ErrorCode.OUT_OF_SPACE) {
                settleHeld("its write failed");
            }
            return;
        }
        held.written = held.written.concat(chunk);
        if (o.sync()) {
            Outcome synced = call(held.writer::sync, info -> info.length());
            if (chaos != null && synced.failed() && (allowedLoss(synced) || unknown(o, synced))) {
                settleHeld("its sync failed");
                return;
            }
            if (expect(o, Outcome.ok((long) held.written.length()), synced, Set.of())) {
                model.find(held.path).data = held.written;
                checkLength(o, held.path, held.written.length());
            }
        }
    }

    private void heldClose() {
        Held h = held;
        held = null;
        Operation o = new Operation.HeldClose();
        Outcome closed = call(h.writer::close, info -> info.length());
        if (h.orphan) {
            if (h.failed != null) {
                expect(o, Outcome.fail(h.failed), closed, Set.of(), "the writer of removed " + h.path);
            } else if (!closed.failed() || !(closed.is(ErrorCode.NOT_FOUND) || closed.is(ErrorCode.STALE_BLOCK))) {
                throw mismatch("closing the writer of removed " + h.path + " should fail NOT_FOUND (or STALE_BLOCK),"
                        + " got " + closed, null);
            }
            return;
        }
        ModelNamespace.Node file = model.find(h.path);
        file.leased = false;
        if (chaos != null && !closed.is(ErrorCode.OUT_OF_SPACE)
                && (h.failed != null && h.failed != ErrorCode.OUT_OF_SPACE || closed.failed() && unknown(o, closed))) {
            resyncFile(h.path, List.of(file.data, h.written), true);
            return;
        }
        if (h.failed != null) {
            expect(o, Outcome.fail(h.failed), closed, Set.of());
        } else if (expect(o, Outcome.ok((long) h.written.length()), closed, SPACE)) {
            file.data = h.written;
        }
        checkLength(o, h.path, file.data.length());
    }

    // ------------------------------------------------------------------ chaos

    /** One fault in {@value #CHAOS_EVERY} steps, on average. */
    private static final int CHAOS_EVERY = 25;
    private static final String[] IN_FLIGHT_FAULTS = {"closes that client", "kills a storage server",
            "restarts a namenode", "cuts the connections to the namenodes"};

    /** A line of the trace that is also logged, so a run that takes the JVM down still shows its faults. */
    private void chaosTrace(String line) {
        trace.add(line);
        LOG.info("model seed {} {}", seed, line);
    }

    /** Before step {@code step}: starts servers whose time has come, and perhaps strikes a fault. */
    private void chaosStep(int step) throws InterruptedException {
        String back = chaos.restartDue(step, false);
        if (back != null) {
            chaosTrace(step + ": chaos: " + back);
        }
        java.util.SplittableRandom r = chaos.random();
        if (r.nextInt(CHAOS_EVERY) != 0) {
            return;
        }
        // The replication mode is about servers dying: half its faults are kills (a quarter elsewhere).
        switch (chaos.replicated() && r.nextBoolean() ? 0 : r.nextInt(4)) {
            case 0 -> {
                int after = r.nextInt(3) == 0 ? 0 : 1 + r.nextInt(15);
                String notNow = chaos.mayKill(client, held == null ? null : held.path);
                if (notNow != null) {
                    chaosTrace(step + ": chaos: no server killed, the cluster is not whole: " + notNow);
                    return;
                }
                chaosTrace(step + ": chaos: kill a storage server");
                chaosTrace(step + ": chaos: " + chaos.killServer(step, after));
            }
            case 1 -> {
                int index = r.nextInt(chaos.namenodes());
                chaosTrace(step + ": chaos: restart namenode " + index);
                chaosTrace(step + ": chaos: " + chaos.restartNamenode(index));
                settleHeld("namenode " + index + " restarted");
            }
            case 2 -> {
                chaosTrace(step + ": chaos: cut the client connections to the namenodes");
                chaosTrace(step + ": chaos: " + chaos.cut());
                closeHeldAfterCut();
            }
            default -> inFlight(step, r);
        }
    }

    /**
     * A third client starts reads of known nodes and the write of a new File, then a fault strikes
     * while they are in flight. Every call must end within its timeout; a read gives the right
     * bytes or an error the fault explains; the new File exists with all its bytes, or empty, or
     * not at all (then the model learns which).
     */
    private void inFlight(int step, java.util.SplittableRandom r) throws InterruptedException {
        inFlightFaults++;
        boolean local = r.nextBoolean();
        int fault = r.nextInt(IN_FLIGHT_FAULTS.length);
        String notNow = fault == 1 ? chaos.mayKill(client, held == null ? null : held.path) : null;
        if (notNow != null) {
            chaosTrace(step + ": chaos: no server killed, the cluster is not whole (" + notNow + "); a cut instead");
            fault = 3;
        }
        String fresh = "/chaos-" + step; // never one of the generator's names
        chaosTrace(step + ": chaos: a third client (" + (local ? "same-host access" : "TCP only") + ") reads and writes "
                + fresh + ", then the chaos " + IN_FLIGHT_FAULTS[fault]);
        List<String> readable = new ArrayList<>();
        for (String p : model.paths()) {
            ModelNamespace.Node n = model.find(p);
            if ((n.type == NodeType.FILE || n.type == NodeType.KEYVALUE) && n.data.length() > 0 && refusePath(p) == null) {
                readable.add(p);
            }
        }
        List<String> reads = new ArrayList<>();
        for (int i = 0; i < 4 && !readable.isEmpty(); i++) {
            reads.add(readable.get(r.nextInt(readable.size())));
        }
        Bytes data = Content.of(-1L - step, 0, 1 + r.nextInt(3 * shape.blockSize()));
        List<CompletableFuture<Object>> pending = new ArrayList<>();
        CompletableFuture<Object> write;
        Outcome wrote;
        boolean closed = false;
        CreelClient third = CreelClient.connect(chaos.clientConf(local));
        try {
            for (String p : reads) {
                int length = model.find(p).data.length();
                pending.add(third.lookup(p).thenCompose(n -> {
                    ByteBuffer dst = ByteBuffer.allocate(length);
                    return n.read(0, dst).thenApply(k -> new Bytes(java.util.Arrays.copyOf(dst.array(), Math.max(0, k))));
                }));
            }
            write = third.create(fresh, NodeType.FILE).thenCompose(n -> {
                DirectWriter w = n.writer();
                return w.write(ByteBuffer.wrap(data.data())).thenCompose(v -> w.close());
            }).thenApply(info -> info.length());
            Thread.sleep(r.nextInt(3));
            switch (fault) {
                case 0 -> {
                    third.close();
                    closed = true;
                }
                case 1 -> chaosTrace(step + ": chaos: " + chaos.killServer(step, 1 + r.nextInt(10)));
                case 2 -> chaosTrace(step + ": chaos: " + chaos.restartNamenode(r.nextInt(chaos.namenodes())));
                default -> chaosTrace(step + ": chaos: " + chaos.cut());
            }
            for (int i = 0; i < reads.size(); i++) {
                CompletableFuture<Object> f = pending.get(i);
                Outcome got = call(() -> f, v -> v);
                Bytes want = model.find(reads.get(i)).data;
                // A restarted namenode refuses blocks of a server until it has registered again (SERVER_UNKNOWN).
                boolean metadataFault = fault == 2 && got.is(ErrorCode.SERVER_UNKNOWN);
                if (!closed && !metadataFault) {
                    noLoss("a read of " + reads.get(i) + " in flight when the chaos " + IN_FLIGHT_FAULTS[fault], got);
                }
                if (!got.sameAs(Outcome.ok(want)) && !(got.failed() && (closed || metadataFault || allowedLoss(got)))) {
                    throw mismatch("a read of " + reads.get(i) + " in flight when the chaos " + IN_FLIGHT_FAULTS[fault]
                            + ": expected " + want + " or an error the fault explains, got " + got, null);
                }
            }
            CompletableFuture<Object> w = write;
            wrote = call(() -> w, v -> v);
            chaosTrace(step + ": chaos: the third client's write of " + fresh + " ended " + wrote);
            if (fault == 3 && wrote.failed() && !wrote.is(ErrorCode.OUT_OF_SPACE) && !allowedLoss(wrote)) {
                // Its client retries each call on a new connection, its lease held meanwhile.
                throw mismatch("the third client's write of " + fresh + " failed across a cut of its connections: "
                        + wrote, null);
            }
        } finally {
            if (!closed) {
                third.close(); // its lease on the new File, if it still holds one, ends with its connections
            }
        }
        if (fault == 2) {
            settleHeld("a namenode restarted");
        } else if (fault == 3) {
            closeHeldAfterCut();
        }
        // Its create may still be on its way (sent before the close, not yet read by the namenode): a
        // lookup now could miss a File that appears later. Taking the name here settles that — if it
        // is taken, the third client's create came first; if not, that create will find it taken. A
        // Directory takes it without a block, so a full cluster cannot refuse it.
        Outcome claimed = call(() -> client.create(fresh, NodeType.DIRECTORY), n -> "claimed");
        if (!claimed.failed() && !wrote.failed()) {
            throw mismatch(fresh + ": the third client's write succeeded, yet the name was free again", null);
        }
        // Out of space (a directory record that must move first) changes nothing, as a lost create may not have.
        boolean lost = claimed.is(ErrorCode.OUT_OF_SPACE)
                || claimed.failed() && unknown(new Operation.Create(fresh, NodeType.DIRECTORY, "", true), claimed);
        if (!claimed.failed() || lost && lookupSettled(fresh, n -> n.type()).sameAs(Outcome.ok(NodeType.DIRECTORY))) {
            model.created(fresh, NodeType.DIRECTORY, true);
        } else if (claimed.is(ErrorCode.ALREADY_EXISTS) || lost) {
            resyncFile(fresh, wrote.failed() ? List.of(Bytes.EMPTY, data) : List.of(data), !wrote.failed());
        } else {
            throw mismatch(fresh + ": creating it after the third client's attempt failed " + claimed, null);
        }
    }

    /**
     * The connections to the namenodes were cut: the held writer's client retries on a new one, where
     * its lease still holds, so its close must go through and publish everything. (A writer idle for
     * longer than the lease hold would lose its lease, and this run's own waits can take that long.)
     */
    private void closeHeldAfterCut() {
        if (held != null) {
            chaosTrace("   chaos: close the held writer after the cut");
            heldClose();
        }
    }

    /**
     * A fault reached the held writer (a namenode restart, which forgets leases; or its own write
     * failed on a dead server): closes it now and learns what its File holds — what was published
     * before, or everything it wrote.
     */
    private void settleHeld(String why) {
        if (held == null) {
            return;
        }
        Held h = held;
        held = null;
        Outcome closed = call(h.writer::close, info -> info.length());
        trace.add("   chaos: closed the held writer of " + h.path + " (" + why + "): " + closed);
        if (h.orphan) {
            return; // its File is gone; the writer only had to end
        }
        ModelNamespace.Node file = model.find(h.path);
        file.leased = false;
        resyncFile(h.path, List.of(file.data, h.written), true);
    }

    /**
     * Whether the chaos mode leaves a mutation's outcome open: it failed with a clear error about a
     * server the chaos killed (under its directory record, say), and may have been applied in part;
     * the caller looks the node up to learn what holds. A lost connection or a namenode restart
     * alone must not fail a mutation: the client retries it, and the namenode applies it once.
     */
    private boolean unknown(Operation o, Outcome actual) {
        if (chaos == null || !actual.failed() || !allowedLoss(actual)) {
            return false;
        }
        resynced++;
        chaosTrace("   chaos: " + o.getClass().getSimpleName() + " failed " + actual + "; looking it up");
        return true;
    }

    /**
     * In the replication mode, fails the run when reading or writing the bytes of a File or KeyValue
     * failed as data on a dead server does: with every block on servers of different hosts and one
     * server down at a time, a copy was always left. (Directory records have one copy: operations on
     * them still meet the ordinary chaos rules.)
     */
    private void noLoss(String what, Outcome actual) {
        if (chaos != null && chaos.replicated() && actual.failed() && Chaos.LOSS.contains(actual.error())) {
            throw mismatch(what + ": failed " + actual + " with replication " + chaos.replication()
                    + " and at most one server down: data was lost", null);
        }
    }

    /**
     * In the replication mode, after the run: fsck finds no File or KeyValue with a block whose every
     * copy is gone.
     */
    private void checkNothingLost() {
        Outcome fsck = call(() -> client.fsck("/"), r -> r);
        if (fsck.failed() || !((io.creel.common.protocol.FsckReply) fsck.value()).damaged().isEmpty()) {
            throw mismatch("with replication " + chaos.replication() + " fsck finds lost blocks: " + fsck, null);
        }
        trace.add("   fsck: no block lost; " + ((io.creel.common.protocol.FsckReply) fsck.value()).replication());
    }

    /** Whether {@code actual} is a clear error about data on a server the chaos killed (counted, traced). */
    private boolean allowedLoss(Outcome actual) {
        String why = chaos == null ? null : chaos.justifies(actual);
        if (why == null) {
            return false;
        }
        lostToChaos++;
        trace.add("   allowed " + actual.error() + ": " + why);
        return true;
    }

    /** A lookup, tried again while a restarted namenode is still coming up (bounded). */
    private Outcome lookupSettled(String path, Function<CreelNode, Object> value) {
        Outcome looked = call(() -> client.lookup(path), value);
        for (int i = 0; i < 20 && chaos != null && looked.is(ErrorCode.UNAVAILABLE); i++) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw mismatch("interrupted", e);
            }
            looked = call(() -> client.lookup(path), value);
        }
        return looked;
    }

    /**
     * After a create of unknown outcome: looks {@code path} up until the create has settled. A node
     * is visible to lookups before its directory record is written, and a create whose record cannot
     * be written (its server died) is undone — the node vanishes again. Once a listing of its parent
     * shows it, the record is written and the create stands; a lookup that finds nothing means it
     * was undone (or never ran). Where the parent cannot be listed (its records are on a server the
     * chaos killed and no live server has room for them), a node found for {@value #UNLISTED_STABLE_MILLIS}
     * ms stands: its record write failed fast, and undid it at once, or it went through. Bounded:
     * {@value #SETTLE_SECONDS} s.
     */
    private Outcome awaitCreateSettled(String path) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(SETTLE_SECONDS);
        List<String> c = ModelNamespace.split(path);
        String parent = ModelNamespace.join(c.subList(0, c.size() - 1));
        String name = c.get(c.size() - 1);
        long unlistedSince = 0;
        while (true) {
            Outcome looked = lookupSettled(path, CreelNode::length);
            if (looked.failed()) {
                return looked;
            }
            Outcome listed = call(() -> client.list(parent), entries -> entries.stream().map(DirectoryEntry::name)
                    .anyMatch(name::equals));
            if (listed.sameAs(Outcome.ok(true))) {
                return looked;
            }
            if (listed.failed() && chaos.justifies(listed) != null) {
                unlistedSince = unlistedSince == 0 ? System.nanoTime() : unlistedSince;
                if (System.nanoTime() - unlistedSince > TimeUnit.MILLISECONDS.toNanos(UNLISTED_STABLE_MILLIS)) {
                    return looked;
                }
            } else {
                unlistedSince = 0;
            }
            if (System.nanoTime() > deadline) {
                throw mismatch(path + ": found by lookups but not listed in " + parent + " for " + SETTLE_SECONDS
                        + " s (last listing: " + listed + ")", null);
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw mismatch("interrupted", e);
            }
        }
    }

    private static final int SETTLE_SECONDS = 20;
    private static final long UNLISTED_STABLE_MILLIS = 2_000;

    /** After a create of unknown outcome: the model learns whether {@code path} exists now. */
    private void resyncNode(String path, NodeType type, boolean enumerable) {
        awaitCreateSettled(path);
        Outcome looked = lookupSettled(path, n -> n.type().displayName());
        if (looked.sameAs(Outcome.ok(type.displayName()))) {
            model.created(path, type, enumerable);
        } else if (!looked.failed()) {
            throw mismatch(path + ": after a create of unknown outcome the node is a " + looked.value()
                    + ", not a " + type.displayName(), null);
        }
    }

    /**
     * After a write, create or commit of unknown outcome: the File at {@code path} (which must exist
     * if {@code mustExist}) holds one of {@code candidates} (else a mismatch), and nobody holds its
     * lease once the connection that may have held it is gone. The model learns both.
     */
    private void resyncFile(String path, List<Bytes> candidates, boolean mustExist) {
        Outcome looked = mustExist ? lookupSettled(path, CreelNode::length) : awaitCreateSettled(path);
        if (looked.is(ErrorCode.NOT_FOUND) && !mustExist) {
            return;
        }
        if (looked.failed()) {
            throw mismatch(path + ": looking it up after a fault: " + looked, null);
        }
        // A lease held through a connection that broke ends when the namenode sees it break.
        Outcome opened = Outcome.fail(ErrorCode.LEASE_CONFLICT);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (opened.is(ErrorCode.LEASE_CONFLICT) && System.nanoTime() < deadline) {
            opened = call(() -> client.openForAppend(path).thenCompose(n -> n.writer().close()), info -> "closed");
            if (opened.is(ErrorCode.LEASE_CONFLICT)) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw mismatch("interrupted", e);
                }
            }
        }
        if (opened.failed() && !allowedLoss(opened)) {
            throw mismatch(path + ": its lease did not end within 10 s of the fault, or it cannot be opened: " + opened,
                    null);
        }
        Outcome read = call(() -> client.lookup(path).thenCompose(node -> {
            ByteBuffer dst = ByteBuffer.allocate((int) node.length());
            return node.read(0, dst).thenApply(k -> new Bytes(java.util.Arrays.copyOf(dst.array(), Math.max(0, k))));
        }), v -> v);
        noLoss("reading " + path + " after a fault", read);
        if (read.failed() && allowedLoss(read)) {
            // Its bytes are on a server that died: which candidate it holds cannot be read; its length tells.
            Outcome length = lookupSettled(path, CreelNode::length);
            for (Bytes c : candidates) {
                if (length.sameAs(Outcome.ok((long) c.length()))) {
                    adopt(path, c);
                    return;
                }
            }
            throw mismatch(path + ": after a fault its length is " + length + ", none of " + candidates, null);
        }
        for (Bytes c : candidates) {
            if (read.sameAs(Outcome.ok(c))) {
                adopt(path, c);
                return;
            }
        }
        throw mismatch(path + ": after a fault it holds " + read + ", none of " + candidates, null);
    }

    /** The model's File at {@code path} (made if missing) holds {@code data} and no lease. */
    private void adopt(String path, Bytes data) {
        if (model.find(path) == null) {
            model.created(path, NodeType.FILE, true);
        }
        ModelNamespace.Node n = model.find(path);
        n.data = data;
        n.leased = false;
    }

    private static void deleteTree(java.nio.file.Path dir) {
        if (dir == null) {
            return;
        }
        try (java.util.stream.Stream<java.nio.file.Path> walk = java.nio.file.Files.walk(dir)) {
            for (java.nio.file.Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                java.nio.file.Files.deleteIfExists(p);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot remove the model's namenode log " + dir, e);
        }
    }

    // ------------------------------------------------------------------ checks

    /** Every node the model knows: its type and, for data, its length and bytes; every listing. */
    private void checkAll() {
        Operation o = new Operation.CheckAll();
        for (String path : model.paths()) {
            if (refusePath(path) != null) {
                continue; // not reachable by path any more (see refusePath)
            }
            ModelNamespace.Node n = model.find(path);
            Outcome looked = call(() -> client.lookup(path), node -> node.type().displayName());
            expect(o, Outcome.ok(n.type.displayName()), looked, Set.of(), path);
            if (n.type == NodeType.FILE || n.type == NodeType.KEYVALUE) {
                int length = n.data.length();
                Outcome read = call(() -> client.lookup(path).thenCompose(node -> {
                    ByteBuffer dst = ByteBuffer.allocate(length);
                    return node.read(0, dst).thenApply(k -> new Bytes(
                            java.util.Arrays.copyOf(dst.array(), Math.max(0, k))));
                }), v -> v);
                noLoss("reading " + path + " back", read);
                expect(o, Outcome.ok(n.data), read, Set.of(), path);
                checkLength(o, path, length);
            } else {
                Outcome expected = model.list(path);
                Outcome listed = call(() -> client.list(path), ModelRun::names);
                expect(o, expected, listed, Set.of(), path + listingDifference(path, expected, listed));
            }
        }
    }

    /** For a listing that disagrees: the names only one side has, and what a lookup of each says now. */
    private String listingDifference(String path, Outcome expected, Outcome listed) {
        if (expected.sameAs(listed) || !(expected.value() instanceof List<?> want) || !(listed.value() instanceof List<?> got)) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (Object e : want) {
            if (!got.contains(e)) {
                String name = String.valueOf(e).substring(0, String.valueOf(e).lastIndexOf(':'));
                b.append("; missing ").append(e).append(", a lookup says ")
                        .append(call(() -> client.lookup(join(path, name)), n -> n.type().displayName()));
            }
        }
        for (Object e : got) {
            if (!want.contains(e)) {
                b.append("; unexpected ").append(e);
            }
        }
        return b.toString();
    }

    /** The length a lookup reports is what the model says was published. */
    private void checkLength(Operation o, String path, long expected) {
        expect(o, Outcome.ok(expected), call(() -> client.lookup(path), n -> n.length()), Set.of(), path + " (length)");
    }

    /**
     * Compares; {@code tolerated} errors are accepted where success was expected (and counted).
     * Returns whether the call succeeded, so the caller applies it to the model.
     */
    private boolean expect(Operation o, Outcome expected, Outcome actual, Set<ErrorCode> tolerated, String... what) {
        if (expected.sameAs(actual)) {
            if (expected.failed()) {
                refusals++;
                refusedAs.merge(expected.error(), 1, Integer::sum);
            }
            return !actual.failed();
        }
        if (!expected.failed() && actual.failed() && tolerated.contains(actual.error())) {
            noteOutOfSpace();
            return false;
        }
        if (allowedLoss(actual)) {
            return false;
        }
        if (expected.failed() && unknown(o, actual)) {
            return false; // refused or lost on the way: nothing changed either way
        }
        String detail = "";
        if (expected.value() instanceof Bytes e && actual.value() instanceof Bytes a) {
            detail = "; first difference at byte " + e.firstDifference(a);
        }
        throw mismatch(o + (what.length > 0 ? " [" + what[0] + "]" : "") + ": expected " + expected + ", got "
                + actual + detail, null);
    }

    private void noteOutOfSpace() {
        outOfSpace++;
        recentOutOfSpace = 20;
    }

    private Mismatch mismatch(String what, Throwable cause) {
        StringBuilder b = new StringBuilder("model test seed ").append(seed).append(" disagrees: ").append(what)
                .append("\nreplay: mvn -o test -pl minicluster -am -Dtest=ModelTest#").append(!chaosMode
                        ? "theStoreAgreesWithTheModelOfItsSemantics" : replication > 1
                        ? "withReplicationNoDataIsLostWhileServersDieOneAtATime"
                        : "theStoreKeepsItsPromisesWhileServersDieNamenodesRestartAndConnectionsBreak")
                .append(" -Dsurefire.failIfNoSpecifiedTests=false")
                .append(" -Dcreel.model.chaos=").append(chaosMode)
                .append(replication > 1 ? " -Dcreel.model.replication=" + replication : "")
                .append(" -Dcreel.model.seed=").append(seed).append(" -Dcreel.model.ops=").append(ops)
                .append("\noperations (last 150 of ").append(trace.size()).append("):\n");
        trace.subList(Math.max(0, trace.size() - 150), trace.size()).forEach(l -> b.append("  ").append(l).append('\n'));
        return new Mismatch(b.toString(), cause);
    }

    // ------------------------------------------------------------------ helpers

    /**
     * What the client says about a path before anything else: LIMIT_EXCEEDED for more than 4096
     * bytes or 128 components (moves can put a node below such a path).
     */
    private static ErrorCode refusePath(String path) {
        if (path.getBytes(StandardCharsets.UTF_8).length > 4096 || ModelNamespace.split(path).size() > 128) {
            return ErrorCode.LIMIT_EXCEEDED;
        }
        return null;
    }

    private static boolean within(String path, String top) {
        return path.equals(top) || path.startsWith(top.equals("/") ? "/" : top + "/");
    }

    private static String join(String parent, String name) {
        return (parent.equals("/") ? "" : parent) + "/" + name;
    }

    private static Object bytesOf(ByteBuffer b) {
        byte[] a = new byte[b.remaining()];
        b.duplicate().get(a);
        return new Bytes(a);
    }

    private static Object names(List<DirectoryEntry> entries) {
        List<String> out = new ArrayList<>();
        for (DirectoryEntry e : entries) {
            out.add(e.name() + ":" + e.info().type().displayName());
        }
        out.sort(null);
        return out;
    }

    /** Runs a call, waiting a bounded time; a thrown or carried CreelException becomes a failed outcome. */
    private static <T> Outcome call(Supplier<CompletableFuture<T>> body, Function<T, Object> value) {
        try {
            T v = body.get().get(CALL_SECONDS, TimeUnit.SECONDS);
            return Outcome.ok(value.apply(v));
        } catch (ExecutionException e) {
            return Outcome.of(CreelException.unwrap(e.getCause()));
        } catch (CreelException e) {
            return Outcome.of(e);
        } catch (TimeoutException e) {
            throw new AssertionError("a call did not complete within " + CALL_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
