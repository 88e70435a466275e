package io.creel.namenode.namespace;

import io.creel.common.protocol.BlockLocation;
import java.util.List;

/**
 * A block of a closed File or KeyValue short of copies on live, non-draining servers (or holding
 * one on a dead or draining server), as {@link Namespace#replicationWork} finds it.
 *
 * @param length  the node's length when found: a node that changed since is not touched
 * @param bytes   the block's bytes to copy
 * @param missing copies to make (0: only copies on dead or draining servers to drop)
 * @param sources the block's copies on live servers, to copy from
 */
public record RepairTask(long nodeId, String path, int index, long tag, long length, long bytes, int missing,
                         List<BlockLocation> sources) {
}
