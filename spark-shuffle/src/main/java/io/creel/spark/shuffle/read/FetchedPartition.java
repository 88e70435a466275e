package io.creel.spark.shuffle.read;

import java.io.InputStream;

/**
 * One reduce partition of one map output, ready to deserialize.
 *
 * @param request   what it was read for
 * @param partition the reduce partition
 * @param stream    its bytes as written by the map task (still compressed/encrypted as Spark wrote them)
 */
public record FetchedPartition(FetchRequest request, int partition, InputStream stream) {
}
