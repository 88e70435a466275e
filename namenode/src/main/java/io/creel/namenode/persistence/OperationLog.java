package io.creel.namenode.persistence;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RequestIdentity;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.namespace.NamespaceLog;
import io.creel.namenode.retry.LoggedAnswer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namenode's operation log: every change is appended (written to the OS) under the namespace
 * lock, and made durable outside it by one syncer thread. Group commit: one fsync covers every
 * record appended before it, so concurrent calls share fsyncs.
 *
 * <p>Sync policies: {@link SyncPolicy#EVERY} completes a call only once its records are fsynced;
 * {@link SyncPolicy#INTERVAL} fsyncs at most every interval and completes calls at once;
 * {@link SyncPolicy#NONE} never fsyncs (the OS writes back; a process kill loses nothing, a machine
 * crash may).
 *
 * <p>If a write or fsync fails, the log stops: every later call fails with UNAVAILABLE (its change
 * may be in memory but is not acknowledged), so nothing is acknowledged that a restart would lose.
 */
final class OperationLog implements NamespaceLog, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OperationLog.class);

    /** When records reach the disk ({@code creel.namenode.log.sync}). */
    enum SyncPolicy {
        EVERY, INTERVAL, NONE;

        static SyncPolicy parse(String v) {
            return switch (v) {
                case "every" -> EVERY;
                case "interval" -> INTERVAL;
                case "none" -> NONE;
                default -> throw new CreelException(ErrorCode.CONFIGURATION,
                        "creel.namenode.log.sync must be every, interval or none: " + v);
            };
        }
    }

    private record Waiter(long position, CompletableFuture<Void> done) {
    }

    private final Path dir;
    private final SyncPolicy policy;
    private final long intervalNanos;
    private final ByteBuf scratch = Unpooled.buffer(4096);
    private final RecordEncoder encoder = new RecordEncoder(scratch);
    /** Time spent in group-commit fsyncs; written under syncLock. */
    private volatile long syncNanos;
    /** Guards the channel swap and fsync. */
    private final Object syncLock = new Object();
    /** Guards waiters and wakes the syncer. */
    private final Object waitLock = new Object();
    private final PriorityQueue<Waiter> waiters = new PriorityQueue<>((a, b) -> Long.compare(a.position, b.position));
    private final AtomicLong syncs = new AtomicLong();
    private final Thread syncer;
    private final long maxTagBase;
    /** The answers a checkpoint carries on (older segments are deleted); guarded by this. */
    private final RecentAnswers answers;
    private FileChannel channel;
    private long segment;
    /** Bytes appended, over all segments (a logical position). */
    private volatile long appended;
    private volatile long durable;
    private volatile IOException failure;
    private volatile boolean closed;

    /** Opens {@code log-<segment>} (new, empty) in {@code dir}. */
    OperationLog(Path dir, long segment, SyncPolicy policy, long intervalNanos, long maxTagSoFar) throws IOException {
        this(dir, segment, policy, intervalNanos, maxTagSoFar, new RecentAnswers(1, 1));
    }

    /** Opens {@code log-<segment>}, remembering {@code answers} (restored ones in it) for checkpoints. */
    OperationLog(Path dir, long segment, SyncPolicy policy, long intervalNanos, long maxTagSoFar,
                 RecentAnswers answers) throws IOException {
        this.answers = answers;
        this.dir = dir;
        this.policy = policy;
        this.intervalNanos = Math.max(1, intervalNanos);
        this.segment = segment;
        this.channel = openSegment(segment);
        this.maxTagBase = maxTagSoFar;
        this.syncer = new Thread(this::syncLoop, "creel-namenode-log-sync");
        syncer.setDaemon(true);
        if (policy != SyncPolicy.NONE) {
            syncer.start();
        }
    }

    private FileChannel openSegment(long seg) throws IOException {
        FileChannel ch = FileChannel.open(dir.resolve(LogFormat.logName(seg)), StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE);
        // The format version first; it becomes durable with the segment's first fsync.
        ByteBuf format = Unpooled.buffer(16);
        try {
            new RecordEncoder(format).format();
            ByteBuffer b = format.nioBuffer();
            while (b.hasRemaining()) {
                ch.write(b);
            }
        } finally {
            format.release();
        }
        NamenodePersistence.syncDirectory(dir);
        return ch;
    }

    /** The segment records go to now. */
    synchronized long segment() {
        return segment;
    }

    /** fsyncs done so far (for measurements and tests). */
    long syncCount() {
        return syncs.get();
    }

    /** Time spent in the fsyncs {@link #syncCount} counts. */
    long syncNanos() {
        return syncNanos;
    }

    /** The largest tag ever logged, restored ones included. */
    synchronized long maxTag() {
        return Math.max(maxTagBase, encoder.maxTag());
    }

    // ------------------------------------------------------------------ appends (namespace lock held)

    @Override
    public synchronized void created(long id, NodeType type, byte[] name, long parentId, String storageClass,
                                     String locationClass, int replication, boolean enumerable, boolean pending,
                                     int slot, long modified) {
        encoder.created(id, type, name, parentId, storageClass, locationClass, replication, enumerable, pending, slot,
                modified);
        flush();
    }

    @Override
    public synchronized void block(long nodeId, int index, AllocatedBlock block) {
        encoder.block(nodeId, index, block);
        flush();
    }

    @Override
    public synchronized void trimmed(long nodeId, int keep) {
        encoder.trimmed(nodeId, keep);
        flush();
    }

    @Override
    public synchronized void length(long nodeId, long length, long modified) {
        encoder.length(nodeId, length, modified);
        flush();
    }

    @Override
    public synchronized void inline(long nodeId, byte[] data, long modified) {
        encoder.inline(nodeId, data, modified);
        flush();
    }

    @Override
    public synchronized void published(long versionId, int slot, long modified) {
        encoder.published(versionId, slot, modified);
        flush();
    }

    @Override
    public synchronized void removed(long nodeId) {
        encoder.removed(nodeId);
        flush();
    }

    @Override
    public synchronized void moved(long nodeId, long newParentId, byte[] name, int slot, long modified) {
        encoder.moved(nodeId, newParentId, name, slot, modified);
        flush();
    }

    @Override
    public synchronized void ordered(long nodeId) {
        encoder.ordered(nodeId);
        flush();
    }

    @Override
    public synchronized void owned(long nodeId, long ownerHigh, long ownerLow, long graceMillis) {
        encoder.owned(nodeId, ownerHigh, ownerLow, graceMillis);
        flush();
    }

    @Override
    public synchronized void access(long nodeId, String owner, String group, int mode) {
        encoder.access(nodeId, owner, group, mode);
        flush();
    }

    @Override
    public synchronized void credential(String name, String id, java.util.List<String> groups, long createdMillis) {
        encoder.credential(name, id, groups, createdMillis);
        flush();
    }

    @Override
    public synchronized void revoked(String name) {
        encoder.revoked(name);
        flush();
    }

    @Override
    public boolean keepsAnswers() {
        return true;
    }

    @Override
    public synchronized void answered(RequestIdentity request, Opcode op, byte[] reply, long atMillis) {
        LoggedAnswer a = new LoggedAnswer(request, op, reply, atMillis);
        encoder.answer(a);
        flush();
        answers.add(a);
    }

    @Override
    public synchronized void withdrawn(RequestIdentity request) {
        encoder.withdrawn(request);
        flush();
        answers.withdraw(request);
    }

    /** The answers still remembered, oldest first: a checkpoint holds them, as the segments it replaces did. */
    synchronized List<LoggedAnswer> recentAnswers() {
        return answers.list();
    }

    /** Writes the encoded records to the segment (the OS has them; durable only after a sync). */
    private void flush() {
        int n = scratch.readableBytes();
        if (failure == null) {
            try {
                ByteBuffer b = scratch.nioBuffer();
                while (b.hasRemaining()) {
                    channel.write(b);
                }
            } catch (IOException e) {
                fail(e);
            }
        }
        scratch.clear();
        appended += n;
    }

    @Override
    public long position() {
        return appended;
    }

    // ------------------------------------------------------------------ durability

    @Override
    public <T> CompletableFuture<T> durable(CompletableFuture<T> outcome, long position) {
        return outcome.handle((value, err) -> {
            long upTo = err == null ? position : appended;
            return awaitDurable(upTo).handle((v, logErr) -> {
                if (logErr != null) {
                    throw CreelException.unwrap(logErr);
                }
                if (err != null) {
                    throw CreelException.unwrap(err);
                }
                return value;
            });
        }).thenCompose(f -> f);
    }

    /** Completes once the log is durable up to {@code position} (at once unless the policy is EVERY). */
    CompletableFuture<Void> awaitDurable(long position) {
        IOException f = failure;
        if (f != null) {
            return CompletableFuture.failedFuture(failed(f));
        }
        if (policy != SyncPolicy.EVERY || durable >= position) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (waitLock) {
            waiters.add(new Waiter(position, done));
            waitLock.notifyAll();
        }
        return done;
    }

    private void syncLoop() {
        while (!closed) {
            try {
                synchronized (waitLock) {
                    if (policy == SyncPolicy.EVERY) {
                        // Sleep until a call waits for records not yet durable; waiters a rotation
                        // (or a failure) already settled are completed on the way.
                        while (!closed && (waiters.isEmpty() || appended <= durable || failure != null)) {
                            completeWaiters();
                            waitLock.wait(1000);
                        }
                    } else {
                        TimeUnit.NANOSECONDS.timedWait(waitLock, intervalNanos);
                    }
                }
                if (closed) {
                    break;
                }
                sync();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** fsyncs everything appended so far and completes the calls waiting for it. */
    void sync() {
        synchronized (syncLock) {
            long target = appended;
            if (target > durable && failure == null) {
                try {
                    long t0 = System.nanoTime();
                    channel.force(false);
                    syncNanos += System.nanoTime() - t0; // under syncLock; read racily by metrics
                    syncs.incrementAndGet();
                    durable = target;
                } catch (IOException e) {
                    fail(e);
                }
            }
        }
        synchronized (waitLock) {
            completeWaiters();
        }
    }

    private void completeWaiters() {
        IOException f = failure;
        while (!waiters.isEmpty() && (f != null || waiters.peek().position <= durable)) {
            Waiter w = waiters.poll();
            if (f != null) {
                w.done.completeExceptionally(failed(f));
            } else {
                w.done.complete(null);
            }
        }
    }

    private void fail(IOException e) {
        if (failure == null) {
            failure = e;
            LOG.error("namenode log {} failed; no further change is acknowledged: {}", dir, e.toString());
        }
        synchronized (waitLock) {
            completeWaiters();
            waitLock.notifyAll();
        }
    }

    private CreelException failed(IOException e) {
        return new CreelException(ErrorCode.UNAVAILABLE, "the namenode log in " + dir + " cannot be written ("
                + e.getMessage() + "); changes are no longer acknowledged, restart the namenode");
    }

    /**
     * Starts segment {@code segment()+1}; the old one is fsynced and closed first, so a later
     * segment never holds records an earlier one lost. Called under the namespace lock (by a
     * checkpoint), so no change falls between the image and the new segment.
     *
     * @return the new segment's number
     */
    synchronized long rotate() {
        synchronized (syncLock) {
            long target = appended;
            segment++;
            encoder.newFile();
            try {
                channel.force(false);
                syncs.incrementAndGet();
                channel.close();
                durable = Math.max(durable, target);
                channel = openSegment(segment);
            } catch (IOException e) {
                fail(e);
            }
        }
        synchronized (waitLock) {
            completeWaiters();
        }
        return segment;
    }

    @Override
    public void close() {
        closed = true;
        synchronized (waitLock) {
            waitLock.notifyAll();
        }
        try {
            syncer.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            synchronized (syncLock) {
                try {
                    if (failure == null) {
                        channel.force(false);
                        durable = appended;
                    }
                    channel.close();
                } catch (IOException e) {
                    LOG.error("closing the namenode log {} failed: {}", dir, e.toString());
                }
            }
        }
        synchronized (waitLock) {
            completeWaiters();
        }
        scratch.release();
    }
}
