package io.creel.spark.shuffle.read;

import io.creel.common.error.CreelException;
import org.apache.spark.shuffle.FetchFailedException;

/**
 * Turns a failed read of a map output into Spark's {@link FetchFailedException}, which makes Spark
 * rerun the map (and the reduce stage) instead of failing the job. Creating it also records the
 * failure in the task context, so Spark sees it even if user code wraps it.
 */
final class FetchFailures {
    private FetchFailures() {
    }

    static FetchFailedException of(int shuffleId, FetchRequest r, int partition, Throwable cause) {
        Throwable c = cause instanceof java.util.concurrent.CompletionException && cause.getCause() != null
                ? cause.getCause() : cause;
        if (c instanceof FetchFailedException f) {
            return f;
        }
        String why = c instanceof CreelException ce ? ce.getMessage() : c.toString();
        return new FetchFailedException(r.location(), shuffleId, r.mapId(), r.mapIndex(), partition,
                "cannot read shuffle " + shuffleId + " map " + r.mapIndex() + " (attempt " + r.mapId()
                        + ") partition " + partition + " from Creel file " + r.path() + ": " + why, c);
    }

    /** Throws a checked exception from code that cannot declare it (Spark's iterators and InputStream.read). */
    @SuppressWarnings("unchecked")
    static <E extends Throwable> RuntimeException sneaky(Throwable t) throws E {
        throw (E) t;
    }
}
