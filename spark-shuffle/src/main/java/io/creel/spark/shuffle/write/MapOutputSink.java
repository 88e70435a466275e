package io.creel.spark.shuffle.write;

import java.io.IOException;
import java.io.OutputStream;

/**
 * Where a map task's partition pieces go, flush by flush: {@link MapOutputFile} (the per-map layout)
 * or {@link MergedMapOutput} (the merged layout). A run is one flush of the task's buffer: its pieces
 * come in increasing partition order. Not thread-safe: the map task's thread uses it.
 */
public interface MapOutputSink {
    /** Starts a run. */
    void beginRun() throws IOException;

    /** The stream of partition {@code p}'s piece in the current run; its close ends the piece. */
    OutputStream piece(int p) throws IOException;

    /** Ends the current run. */
    void endRun() throws IOException;

    /** Makes everything written readable; returns every partition's length over all runs (the MapStatus sizes). */
    long[] commit() throws IOException;

    /** The task failed or was killed before its commit: what it wrote is never read (and removed where it can be). */
    void abort();

    /** Bytes of partition data written so far. */
    long written();
}
