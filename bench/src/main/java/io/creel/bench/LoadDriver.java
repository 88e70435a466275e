package io.creel.bench;

import io.creel.bench.stats.LatencyRecorder;
import io.creel.bench.stats.Summary;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A closed-loop load of asynchronous operations: {@code clients × inFlight} slots, each issuing its
 * next operation as soon as the previous one completes, until the duration or the operation budget
 * is used up. Latency is from issue to completion; throughput is over the wall time of the run.
 */
public final class LoadDriver {
    /** Starts one operation of client {@code client}; {@code seq} is unique across the run. */
    @FunctionalInterface
    public interface AsyncOp {
        CompletableFuture<?> start(int client, long seq);
    }

    private final Progress progress;
    private final Duration slack;

    /** {@code slack}: how long past the duration to wait for the last operations before failing. */
    public LoadDriver(Progress progress, Duration slack) {
        this.progress = progress;
        this.slack = slack;
    }

    /**
     * Runs the load.
     *
     * @param bytesPerOp payload bytes each operation moves (for MB/s), 0 for metadata operations
     */
    public Summary run(String label, int clients, int inFlight, Duration duration, long maxOps, long bytesPerOp,
                       AsyncOp op) {
        LatencyRecorder rec = new LatencyRecorder();
        AtomicLong issued = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int slots = clients * inFlight;
        CountDownLatch finished = new CountDownLatch(slots);
        long start = System.nanoTime();
        long deadline = start + duration.toNanos();
        progress.point(label, rec::count);
        for (int c = 0; c < clients; c++) {
            for (int s = 0; s < inFlight; s++) {
                new Slot(c, op, rec, issued, maxOps, deadline, failure, finished, bytesPerOp).next();
            }
        }
        try {
            if (!finished.await(duration.plus(slack).toMillis(), TimeUnit.MILLISECONDS)) {
                throw new CreelException(ErrorCode.TIMEOUT, label + ": operations still outstanding "
                        + slack.toSeconds() + "s after the run's end");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CreelException(ErrorCode.UNAVAILABLE, label + ": interrupted");
        }
        long elapsed = System.nanoTime() - start;
        Throwable t = failure.get();
        if (t != null) {
            CreelException e = CreelException.unwrap(t);
            throw new CreelException(e.code(), label + ": " + e.getMessage(), e);
        }
        return rec.summary(elapsed);
    }

    /** One in-flight position: a loop that never recurses when operations complete synchronously. */
    private static final class Slot {
        private final int client;
        private final AsyncOp op;
        private final LatencyRecorder rec;
        private final AtomicLong issued;
        private final long maxOps;
        private final long deadline;
        private final AtomicReference<Throwable> failure;
        private final CountDownLatch finished;
        private final long bytes;

        Slot(int client, AsyncOp op, LatencyRecorder rec, AtomicLong issued, long maxOps, long deadline,
             AtomicReference<Throwable> failure, CountDownLatch finished, long bytes) {
            this.client = client;
            this.op = op;
            this.rec = rec;
            this.issued = issued;
            this.maxOps = maxOps;
            this.deadline = deadline;
            this.failure = failure;
            this.finished = finished;
            this.bytes = bytes;
        }

        void next() {
            while (true) {
                long seq = issued.getAndIncrement();
                if (failure.get() != null || seq >= maxOps || System.nanoTime() >= deadline) {
                    finished.countDown();
                    return;
                }
                long t0 = System.nanoTime();
                CompletableFuture<?> f;
                try {
                    f = op.start(client, seq);
                } catch (RuntimeException e) {
                    f = CompletableFuture.failedFuture(e);
                }
                if (f.isDone()) {
                    if (!complete(f, t0)) {
                        return;
                    }
                    continue;
                }
                CompletableFuture<?> pending = f;
                pending.whenComplete((v, t) -> {
                    if (complete(pending, t0)) {
                        next();
                    }
                });
                return;
            }
        }

        /** Records a completed operation; false (and the slot is finished) if it failed. */
        private boolean complete(CompletableFuture<?> f, long t0) {
            long t = System.nanoTime() - t0;
            if (f.isCompletedExceptionally()) {
                try {
                    f.join();
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
                finished.countDown();
                return false;
            }
            rec.record(t, bytes);
            return true;
        }
    }
}
