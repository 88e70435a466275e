package io.creel.spark.shuffle.read;

/**
 * Where a reduce task's pieces come from, one at a time: the per-map layout's
 * {@link PartitionFetcher} or the merged layout's {@link MergedFetcher}.
 */
interface PieceSource {
    /**
     * The next piece, or {@code null} when all are read. The previous piece's stream must have been
     * consumed; a failure to read, a checksum mismatch or lost data throws Spark's
     * {@code FetchFailedException} (Spark reruns the map).
     */
    FetchedPartition next();

    /** A piece's stream whose checksum is checked when its end is read. */
    interface Checked {
        /** Reads what is left of the piece and checks its checksum now (a mismatch throws the fetch failure). */
        void verifyRest();
    }
}
