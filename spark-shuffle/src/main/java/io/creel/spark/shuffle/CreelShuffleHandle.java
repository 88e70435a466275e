package io.creel.spark.shuffle;

import org.apache.spark.ShuffleDependency;
import org.apache.spark.shuffle.BaseShuffleHandle;

/**
 * A shuffle whose data lives in Creel: its directory, and how its map tasks hold records before
 * they write them (chosen on the driver from the dependency). Shuffles that fall back to Spark's
 * sort shuffle carry Spark's own handle types instead.
 */
public final class CreelShuffleHandle<K, V, C> extends BaseShuffleHandle<K, V, C> {
    private static final long serialVersionUID = 1L;

    /** How a map task holds its records until it writes them (see {@code write.CreelShuffleWriter}). */
    public enum WriterKind {
        /** Relocatable serializer, no map-side combine: records serialized as they come. */
        SERIALIZED,
        /** Map-side combine: combiners in a hash map, one per key and partition. */
        COMBINING,
        /** A serializer that cannot relocate records (Java serialization): records kept as objects. */
        OBJECTS
    }

    private final String directory;
    private final WriterKind writerKind;
    private final boolean merged;

    /**
     * @param merged whether map outputs are laid out merged (a Bag per reduce partition) rather than
     *               one File per map (see {@code SparkCreelConf.LAYOUT})
     */
    public CreelShuffleHandle(int shuffleId, ShuffleDependency<K, V, C> dependency, String directory,
                              WriterKind writerKind, boolean merged) {
        super(shuffleId, dependency);
        this.directory = directory;
        this.writerKind = writerKind;
        this.merged = merged;
    }

    /** Whether map outputs are in the merged layout: lanes' Files in a Bag per reduce partition. */
    public boolean merged() {
        return merged;
    }

    /** The shuffle's Creel directory (see {@code format.ShufflePaths} for what it holds in either layout). */
    public String directory() {
        return directory;
    }

    public WriterKind writerKind() {
        return writerKind;
    }

    @Override
    public String toString() {
        return "CreelShuffleHandle(" + shuffleId() + ", " + directory + ", " + writerKind
                + (merged ? ", merged" : ", per-map") + ")";
    }
}
