package io.creel.spark.shuffle;

import org.apache.spark.ShuffleDependency;
import org.apache.spark.shuffle.BaseShuffleHandle;

/**
 * A shuffle whose data lives in Creel: its directory, and which of Spark's map-side writers
 * produces its bytes (chosen on the driver the way Spark's sort shuffle chooses). Shuffles that
 * fall back to Spark's sort shuffle carry Spark's own handle types instead.
 */
public final class CreelShuffleHandle<K, V, C> extends BaseShuffleHandle<K, V, C> {
    private static final long serialVersionUID = 1L;

    /** Spark's map-side writer paths (see Spark's SortShuffleManager). */
    public enum WriterKind {
        /** Few partitions, no map-side combine: one file per partition, concatenated. */
        BYPASS_MERGE,
        /** Relocatable serializer, no map-side combine: records sorted in serialized form. */
        SERIALIZED,
        /** Everything else: ExternalSorter over deserialized records (map-side combine, spills). */
        SORT
    }

    private final String directory;
    private final WriterKind writerKind;

    public CreelShuffleHandle(int shuffleId, ShuffleDependency<K, V, C> dependency, String directory,
                              WriterKind writerKind) {
        super(shuffleId, dependency);
        this.directory = directory;
        this.writerKind = writerKind;
    }

    /** The shuffle's Creel directory, holding one File per committed or running map task attempt. */
    public String directory() {
        return directory;
    }

    public WriterKind writerKind() {
        return writerKind;
    }

    @Override
    public String toString() {
        return "CreelShuffleHandle(" + shuffleId() + ", " + directory + ", " + writerKind + ")";
    }
}
