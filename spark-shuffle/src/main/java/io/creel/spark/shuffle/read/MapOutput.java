package io.creel.spark.shuffle.read;

import io.creel.client.CreelNode;
import io.creel.spark.shuffle.format.MapOutputIndex;

/**
 * A committed map output file, opened: its node handle (for positioned reads) and its index.
 *
 * @param path  the File's path
 * @param node  the File, looked up after its map task committed (its length covers everything)
 * @param index where each partition lies
 */
public record MapOutput(String path, CreelNode node, MapOutputIndex index) {
}
