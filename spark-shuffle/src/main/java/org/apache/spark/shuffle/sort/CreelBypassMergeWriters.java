package org.apache.spark.shuffle.sort;

import org.apache.spark.SparkConf;
import org.apache.spark.SparkException;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.ShuffleWriter;
import org.apache.spark.shuffle.api.ShuffleExecutorComponents;
import org.apache.spark.storage.BlockManager;

/**
 * Creel's only class in a Spark package: Spark's bypass-merge writer is package-private, and the
 * Creel shuffle manager (io.creel.spark.shuffle) hands it Creel's map output writers. Nothing else.
 */
public final class CreelBypassMergeWriters {
    private CreelBypassMergeWriters() {
    }

    /** Spark's bypass-merge-sort writer for {@code handle}, writing through {@code outputs}. */
    public static <K, V> ShuffleWriter<K, V> create(BlockManager blockManager, BypassMergeSortShuffleHandle<K, V> handle,
                                                  long mapId, SparkConf conf, ShuffleWriteMetricsReporter metrics,
                                                  ShuffleExecutorComponents outputs) throws SparkException {
        return new BypassMergeSortShuffleWriter<>(blockManager, handle, mapId, conf, metrics, outputs);
    }
}
