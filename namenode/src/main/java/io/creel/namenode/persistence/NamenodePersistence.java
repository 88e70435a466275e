package io.creel.namenode.persistence;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.namenode.NamenodeKeys;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.allocation.BlockAllocator;
import io.creel.namenode.namespace.Namespace;
import io.creel.namenode.namespace.NamespaceImage;
import io.creel.namenode.namespace.NamespaceLog;
import io.creel.namenode.registry.ServerRegistry;
import io.creel.namenode.retry.LoggedAnswer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A namenode's persistence ({@code creel.namenode.log.dir}): at start, restores the namespace from
 * the newest checkpoint plus the log after it, writes a fresh checkpoint and opens a new log
 * segment; while running, logs every change ({@link OperationLog}) and every
 * {@code creel.namenode.checkpoint.interval} writes a checkpoint, starts a new segment and deletes
 * the older files, so a restart replays at most one interval of changes.
 *
 * <p>The directory is locked ({@code namenode.lock}) so two namenodes never share it.
 */
public final class NamenodePersistence implements AutoCloseable {
    /** Checkpoint figures for metrics; written under checkpointLock. */
    private volatile long checkpoints;
    private volatile long checkpointNanos;
    private volatile long lastCheckpointNanos;
    private static final Logger LOG = LoggerFactory.getLogger(NamenodePersistence.class);

    private final Path dir;
    private final Namespace namespace;
    private final OperationLog log;
    private final FileChannel lockChannel;
    private final ScheduledThreadPoolExecutor timer;
    private final Object checkpointLock = new Object();
    private long checkpointedAt;

    private NamenodePersistence(Path dir, Namespace namespace, OperationLog log, FileChannel lockChannel,
                                ScheduledThreadPoolExecutor timer) {
        this.dir = dir;
        this.namespace = namespace;
        this.log = log;
        this.lockChannel = lockChannel;
        this.timer = timer;
    }

    /** What a start restored, for logs and tests. */
    public record Recovery(long checkpoint, long imageRecords, long logRecords, int segments, long nodes,
                           long blocks, long tornBytes, long millis) {
    }

    private volatile Recovery recovery;
    /** The answers restored at start, oldest first, for the retry cache. */
    private volatile List<LoggedAnswer> restoredAnswers = List.of();

    /**
     * Restores {@code namespace} (fresh, not yet serving) from the log directory in {@code conf},
     * then logs its every change there. The registry learns the servers holding restored blocks
     * (dead until they register with the same identity); the allocator, which of their blocks are used.
     */
    public static NamenodePersistence open(CreelConf conf, Namespace namespace, ServerRegistry registry,
                                           BlockAllocator allocator) {
        Path dir = Path.of(conf.get(NamenodeKeys.LOG_DIR)).toAbsolutePath();
        OperationLog.SyncPolicy policy = OperationLog.SyncPolicy.parse(conf.get(NamenodeKeys.LOG_SYNC));
        long interval = conf.get(NamenodeKeys.LOG_SYNC_INTERVAL).toNanos();
        long checkpointMillis = Math.max(1, conf.get(NamenodeKeys.CHECKPOINT_INTERVAL).toMillis());
        FileChannel lock = lock(dir);
        OperationLog log = null;
        try {
            long started = System.nanoTime();
            TreeMap<Long, Path> checkpoints = new TreeMap<>();
            TreeMap<Long, Path> logs = new TreeMap<>();
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String name = f.getFileName().toString();
                    if (name.endsWith(".tmp")) {
                        Files.delete(f); // a checkpoint that never completed
                    } else if (LogFormat.segmentOf(name, LogFormat.CHECKPOINT_PREFIX) >= 0) {
                        checkpoints.put(LogFormat.segmentOf(name, LogFormat.CHECKPOINT_PREFIX), f);
                    } else if (LogFormat.segmentOf(name, LogFormat.LOG_PREFIX) >= 0) {
                        logs.put(LogFormat.segmentOf(name, LogFormat.LOG_PREFIX), f);
                    }
                }
            }
            NamespaceImage.Rebuilder rebuilder = new NamespaceImage.Rebuilder(namespace);
            RecentAnswers answers = new RecentAnswers(conf.get(NamenodeKeys.RETRY_CACHE_SIZE),
                    conf.get(NamenodeKeys.RETRY_CACHE_EXPIRY).toMillis());
            long maxTag = 0;
            long imageRecords = 0;
            long logRecords = 0;
            long torn = 0;
            long checkpoint = 0;
            int segments = 0;
            if (!checkpoints.isEmpty()) {
                checkpoint = checkpoints.lastKey();
                Path file = checkpoints.lastEntry().getValue();
                LogReader.Result r = LogReader.read(file, rebuilder, answers, false);
                if (!r.complete() || r.head() != checkpoint) {
                    throw new CreelException(ErrorCode.CONFIGURATION, "namenode checkpoint " + file
                            + " is incomplete (no end record or a wrong head); move the log directory away to start empty");
                }
                imageRecords = r.records();
                maxTag = r.maxTag();
                List<Long> after = new ArrayList<>(logs.tailMap(checkpoint, true).keySet());
                for (int i = 0; i < after.size(); i++) {
                    long seg = after.get(i);
                    if (seg != checkpoint + i) {
                        throw new CreelException(ErrorCode.CONFIGURATION, "namenode log segment "
                                + LogFormat.logName(checkpoint + i) + " is missing in " + dir + " (found "
                                + LogFormat.logName(seg) + ")");
                    }
                    LogReader.Result lr = LogReader.read(logs.get(seg), rebuilder, answers, i == after.size() - 1);
                    logRecords += lr.records();
                    torn += lr.tornBytes();
                    maxTag = Long.compareUnsigned(lr.maxTag(), maxTag) > 0 ? lr.maxTag() : maxTag;
                    segments++;
                }
            } else if (!logs.isEmpty()) {
                throw new CreelException(ErrorCode.CONFIGURATION, dir + " holds namenode log segments but no checkpoint;"
                        + " it was not written by this namenode (move it away to start empty)");
            }
            long blocks = rebuilder.finish(registry, allocator, maxTag);
            long last = Math.max(checkpoints.isEmpty() ? 0 : checkpoints.lastKey(), logs.isEmpty() ? 0 : logs.lastKey());
            long segment = last + 1;
            long maxTagSoFar = maxTag;
            List<LoggedAnswer> restored = answers.list();
            writeCheckpoint(dir, namespace, () -> { }, () -> segment, () -> maxTagSoFar, () -> restored);
            log = new OperationLog(dir, segment, policy, interval, maxTag, answers);
            deleteBefore(dir, segment);
            ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "creel-namenode-checkpoint");
                t.setDaemon(true);
                return t;
            });
            NamenodePersistence p = new NamenodePersistence(dir, namespace, log, lock, timer);
            p.restoredAnswers = restored;
            namespace.setLog(log);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            p.recovery = new Recovery(checkpoint, imageRecords, logRecords, segments, namespace.nodeCount(), blocks,
                    torn, millis);
            if (checkpoint == 0) {
                LOG.info("namenode log {}: no checkpoint, starting empty (sync {}, checkpoint every {} ms)", dir,
                        policy.name().toLowerCase(), checkpointMillis);
            } else {
                LOG.info("namenode log {}: checkpoint {} loaded ({} records), {} log records replayed from {} segment(s)"
                        + "{}; {} nodes, {} blocks in use; took {} ms (sync {}, checkpoint every {} ms)", dir,
                        checkpoint, imageRecords, logRecords, segments,
                        torn > 0 ? ", a torn tail of " + torn + " bytes ignored" : "", namespace.nodeCount(), blocks,
                        millis, policy.name().toLowerCase(), checkpointMillis);
            }
            timer.scheduleWithFixedDelay(p::checkpointQuietly, checkpointMillis, checkpointMillis,
                    TimeUnit.MILLISECONDS);
            return p;
        } catch (IOException e) {
            closeQuietly(log, lock);
            throw new CreelException(ErrorCode.CONFIGURATION, "namenode log " + dir + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(log, lock);
            throw e;
        }
    }

    /** What the start restored. */
    public Recovery recovery() {
        return recovery;
    }

    /**
     * The answers to identified requests the log and checkpoint held at start (within the retry
     * cache's bounds), oldest first: the retry cache is seeded with them, so a retry of a request a
     * previous run applied gets that run's answer.
     */
    public List<LoggedAnswer> restoredAnswers() {
        return restoredAnswers;
    }

    /** fsyncs done by the log so far (a measurement aid). */
    public long syncCount() {
        return log.syncCount();
    }

    /** Seconds the log has spent in those fsyncs. */
    public double syncSeconds() {
        return log.syncNanos() / 1e9;
    }

    /** Checkpoints written since this namenode started. */
    public long checkpointCount() {
        return checkpoints;
    }

    /** Seconds spent writing those checkpoints. */
    public double checkpointSeconds() {
        return checkpointNanos / 1e9;
    }

    /** Seconds the last checkpoint took; 0 before the first. */
    public double lastCheckpointSeconds() {
        return lastCheckpointNanos / 1e9;
    }

    /**
     * Writes a checkpoint now (if anything changed since the last) and deletes the files it makes
     * obsolete.
     *
     * @return whether a checkpoint was written
     */
    public boolean checkpoint() throws IOException {
        synchronized (checkpointLock) {
            if (log.position() == checkpointedAt) {
                return false;
            }
            long t0 = System.nanoTime();
            long[] segment = new long[1];
            long[] position = new long[1];
            java.util.concurrent.atomic.AtomicReference<List<LoggedAnswer>> answers =
                    new java.util.concurrent.atomic.AtomicReference<>();
            // Answers are logged under the namespace lock too: those in the segments this checkpoint
            // replaces are exactly those remembered at the rotation.
            writeCheckpoint(dir, namespace, () -> {
                segment[0] = log.rotate();
                position[0] = log.position();
                answers.set(log.recentAnswers());
            }, () -> segment[0], log::maxTag, answers::get);
            checkpointedAt = position[0];
            deleteBefore(dir, segment[0]);
            long took = System.nanoTime() - t0;
            lastCheckpointNanos = took;
            checkpointNanos += took; // under checkpointLock; read racily by metrics
            checkpoints++;
            return true;
        }
    }

    private void checkpointQuietly() {
        try {
            long t0 = System.nanoTime();
            if (checkpoint()) {
                LOG.info("namenode log {}: checkpoint {} written in {} ms", dir, log.segment(),
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0));
            }
        } catch (IOException | RuntimeException e) {
            LOG.error("namenode log {}: checkpoint failed (the log goes on; replay at restart gets longer): {}", dir,
                    e.toString());
        }
    }

    /**
     * Takes the image under the namespace lock (running {@code thenLocked} there), then writes it
     * outside the lock: to a temporary file, fsynced, renamed into place, directory fsynced.
     */
    private static void writeCheckpoint(Path dir, Namespace ns, Runnable thenLocked, LongSupplier segment,
                                        LongSupplier maxTagSoFar, Supplier<List<LoggedAnswer>> answers)
            throws IOException {
        ByteBuf nodes = Unpooled.buffer(1 << 16);
        ByteBuf head = Unpooled.buffer(64);
        try {
            RecordEncoder enc = new RecordEncoder(nodes);
            NamespaceImage.Head h = NamespaceImage.snapshot(ns, sink(enc), thenLocked);
            long seg = segment.getAsLong();
            long maxTag = maxTagSoFar.getAsLong();
            if (Long.compareUnsigned(enc.maxTag(), maxTag) > 0) {
                maxTag = enc.maxTag();
            }
            RecordEncoder headEncoder = new RecordEncoder(head);
            headEncoder.format();
            headEncoder.head(seg, h.rootId(), h.lastId(), maxTag);
            for (LoggedAnswer a : answers.get()) {
                enc.answer(a);
            }
            enc.imageEnd(0);
            Path tmp = dir.resolve(LogFormat.checkpointName(seg) + ".tmp");
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                    StandardOpenOption.WRITE)) {
                for (ByteBuf b : List.of(head, nodes)) {
                    ByteBuffer bb = b.nioBuffer();
                    while (bb.hasRemaining()) {
                        ch.write(bb);
                    }
                }
                ch.force(true);
            }
            Files.move(tmp, dir.resolve(LogFormat.checkpointName(seg)), StandardCopyOption.ATOMIC_MOVE);
            syncDirectory(dir);
        } finally {
            nodes.release();
            head.release();
        }
    }

    /** The image sink: nodes become records. */
    private static NamespaceLog sink(RecordEncoder enc) {
        return new NamespaceLog() {
            @Override
            public void created(long id, NodeType type, byte[] name, long parentId, String storageClass,
                                String locationClass, int replication, boolean enumerable, boolean pending, int slot,
                                long modified) {
                enc.created(id, type, name, parentId, storageClass, locationClass, replication, enumerable, pending,
                        slot, modified);
            }

            @Override
            public void block(long nodeId, int index, AllocatedBlock block) {
                enc.block(nodeId, index, block);
            }

            @Override
            public void trimmed(long nodeId, int keep) {
                enc.trimmed(nodeId, keep);
            }

            @Override
            public void length(long nodeId, long length, long modified) {
                enc.length(nodeId, length, modified);
            }

            @Override
            public void inline(long nodeId, byte[] data, long modified) {
                enc.inline(nodeId, data, modified);
            }

            @Override
            public void published(long versionId, int slot, long modified) {
                enc.published(versionId, slot, modified);
            }

            @Override
            public void removed(long nodeId) {
                enc.removed(nodeId);
            }

            @Override
            public void moved(long nodeId, long newParentId, byte[] name, int slot, long modified) {
                enc.moved(nodeId, newParentId, name, slot, modified);
            }

            @Override
            public void owned(long nodeId, long ownerHigh, long ownerLow, long graceMillis) {
                enc.owned(nodeId, ownerHigh, ownerLow, graceMillis);
            }

            @Override
            public void access(long nodeId, String owner, String group, int mode) {
                enc.access(nodeId, owner, group, mode);
            }

            @Override
            public void credential(String name, String id, java.util.List<String> groups, long createdMillis) {
                enc.credential(name, id, groups, createdMillis);
            }

            @Override
            public void ordered(long nodeId) {
                enc.ordered(nodeId);
            }

            @Override
            public long position() {
                return 0;
            }

            @Override
            public <T> CompletableFuture<T> durable(CompletableFuture<T> outcome, long position) {
                return outcome;
            }
        };
    }

    /** Deletes log segments and checkpoints older than {@code segment} (its checkpoint covers them). */
    private static void deleteBefore(Path dir, long segment) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                long s = Math.max(LogFormat.segmentOf(name, LogFormat.LOG_PREFIX),
                        LogFormat.segmentOf(name, LogFormat.CHECKPOINT_PREFIX));
                if (s >= 0 && s < segment) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** fsyncs a directory, so a file created or renamed in it survives a crash. */
    static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    private static FileChannel lock(Path dir) {
        FileChannel ch = null;
        try {
            Files.createDirectories(dir);
            ch = FileChannel.open(dir.resolve(LogFormat.LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null;
            }
            if (l == null) {
                throw new CreelException(ErrorCode.CONFIGURATION, dir + " (creel.namenode.log.dir) is in use by another "
                        + "namenode; each namenode needs a log directory of its own");
            }
            return ch;
        } catch (IOException e) {
            closeQuietly(null, ch);
            throw new CreelException(ErrorCode.CONFIGURATION, "creel.namenode.log.dir: cannot use " + dir + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(null, ch);
            throw e;
        }
    }

    private static void closeQuietly(OperationLog log, FileChannel lock) {
        if (log != null) {
            log.close();
        }
        if (lock != null) {
            try {
                lock.close();
            } catch (IOException e) {
                LOG.warn("closing the namenode log lock failed: {}", e.toString());
            }
        }
    }

    /** Stops checkpoints and closes the log (everything appended is fsynced first). */
    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(log, lockChannel);
    }

}
