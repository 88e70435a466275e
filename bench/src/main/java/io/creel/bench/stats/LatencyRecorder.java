package io.creel.bench.stats;

import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Latencies of one measured operation, recorded from any thread (an HdrHistogram with three
 * significant digits from 1 ns to one hour), plus the bytes they moved. {@link #summary} turns them
 * into percentiles and rates over the wall time the caller measured.
 */
public final class LatencyRecorder {
    private static final long MAX_NANOS = 3_600_000_000_000L;

    private final Histogram histogram = new ConcurrentHistogram(1, MAX_NANOS, 3);
    private final LongAdder bytes = new LongAdder();

    /** Records one operation that took {@code nanos} and moved {@code byteCount} bytes. */
    public void record(long nanos, long byteCount) {
        histogram.recordValue(Math.max(1, Math.min(nanos, MAX_NANOS)));
        bytes.add(byteCount);
    }

    /** Records one operation that moved no payload. */
    public void record(long nanos) {
        record(nanos, 0);
    }

    public long count() {
        return histogram.getTotalCount();
    }

    /** Percentiles and rates, with throughput computed over {@code elapsedNanos} of wall time. */
    public Summary summary(long elapsedNanos) {
        long n = histogram.getTotalCount();
        if (n == 0) {
            return Summary.EMPTY;
        }
        double seconds = elapsedNanos / 1e9;
        return new Summary(n, seconds, n / seconds, bytes.sum() / seconds,
                histogram.getMean() / 1000.0,
                histogram.getValueAtPercentile(50) / 1000.0,
                histogram.getValueAtPercentile(99) / 1000.0,
                histogram.getValueAtPercentile(99.9) / 1000.0,
                histogram.getMaxValue() / 1000.0);
    }
}
