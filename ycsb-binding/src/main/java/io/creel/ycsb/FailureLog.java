package io.creel.ycsb;

import io.creel.common.error.CreelException;
import io.creel.ycsb.record.MalformedRecordException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;

/**
 * Failed operations of one process, logged once per kind: the first failure of each kind (a
 * Creel error code, or an exception class) is logged with its message, the rest are counted and
 * summed up at the end. A run of a million operations against a dead namenode prints a line, not
 * a million.
 */
public final class FailureLog {
    private final Logger log;
    private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

    public FailureLog(Logger log) {
        this.log = log;
    }

    /** Records that {@code operation} of {@code key} in {@code table} failed with {@code cause}. */
    public void failed(String operation, String table, String key, Throwable cause) {
        String kind = kindOf(cause);
        LongAdder count = new LongAdder();
        LongAdder existing = counts.putIfAbsent(kind, count);
        (existing == null ? count : existing).increment();
        if (existing == null) {
            String first = "YCSB " + operation + " of key '" + key + "' in table '" + table + "' failed (" + kind
                    + "): " + cause.getMessage() + " -- further " + kind + " failures are counted, not logged";
            if (expected(cause)) {
                log.warn(first);
            } else {
                log.warn(first, cause); // not a Creel or record error: a bug, so its stack trace is wanted
            }
        }
    }

    /** Records a condition that applies to every call of an operation (e.g. one that is not supported). */
    public void unsupported(String operation, String reason) {
        String kind = "NOT_IMPLEMENTED " + operation;
        LongAdder count = new LongAdder();
        LongAdder existing = counts.putIfAbsent(kind, count);
        (existing == null ? count : existing).increment();
        if (existing == null) {
            log.warn("YCSB {} is not supported: {}", operation, reason);
        }
    }

    /** Failures so far by kind, in name order. */
    public Map<String, Long> counts() {
        Map<String, Long> out = new TreeMap<>();
        counts.forEach((k, v) -> out.put(k, v.sum()));
        return out;
    }

    /** Logs the totals if anything failed. */
    public void summarize() {
        Map<String, Long> all = counts();
        if (!all.isEmpty()) {
            log.warn("YCSB operations that did not succeed, by kind: {}", all);
        }
    }

    private static boolean expected(Throwable t) {
        return t instanceof CreelException || t instanceof MalformedRecordException;
    }

    private static String kindOf(Throwable t) {
        return t instanceof CreelException ce ? ce.code().name() : t.getClass().getSimpleName();
    }
}
