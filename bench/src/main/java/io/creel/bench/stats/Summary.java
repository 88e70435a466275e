package io.creel.bench.stats;

/**
 * What one measurement point came to.
 *
 * @param count         operations completed
 * @param seconds       wall time they took
 * @param opsPerSec     operations per second of wall time
 * @param bytesPerSec   payload bytes per second of wall time
 * @param meanMicros    mean latency, µs
 * @param p50Micros     median latency, µs
 * @param p99Micros     99th percentile latency, µs
 * @param p999Micros    99.9th percentile latency, µs
 * @param maxMicros     largest latency, µs
 */
public record Summary(long count, double seconds, double opsPerSec, double bytesPerSec, double meanMicros,
                      double p50Micros, double p99Micros, double p999Micros, double maxMicros) {
    /** No operation completed. */
    public static final Summary EMPTY = new Summary(0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** A pure bandwidth figure (no latencies), e.g. a copy loop timed as a whole. */
    public static Summary bandwidth(long bytes, long ops, long elapsedNanos) {
        double s = elapsedNanos / 1e9;
        double perOp = ops == 0 ? 0 : elapsedNanos / 1000.0 / ops;
        return new Summary(ops, s, ops / s, bytes / s, perOp, perOp, perOp, perOp, perOp);
    }

    /** Bytes moved per second by one operation of {@code size} bytes at the median latency. */
    public double p50Bandwidth(long size) {
        return p50Micros <= 0 ? 0 : size / (p50Micros / 1e6);
    }
}
