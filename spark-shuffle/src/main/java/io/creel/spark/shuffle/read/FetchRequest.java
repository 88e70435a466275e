package io.creel.spark.shuffle.read;

import org.apache.spark.storage.BlockManagerId;

/**
 * The partitions {@code [startPartition, endPartition)} of one committed map output that a reduce
 * task reads.
 *
 * @param mapId    the map task attempt whose output the driver registered (its MapStatus)
 * @param mapIndex the map's partition index
 * @param location the executor that wrote it (named in a FetchFailedException so Spark reruns the map)
 * @param path     the map output File
 */
public record FetchRequest(long mapId, int mapIndex, BlockManagerId location, String path, int startPartition,
                           int endPartition) {
}
