package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Wire;

/**
 * The rule for small data kept in a node instead of in blocks (see docs/architecture.md, "Small
 * values"): a File or KeyValue whose whole committed content fits the limit may keep it inline,
 * while it is empty or inline already; a node that moved to blocks never moves back.
 */
final class InlineValues {
    /** The content of every empty inline node (one array, not one per node). */
    private static final byte[] NO_BYTES = new byte[0];

    private final int max;

    /** @param max the most bytes a node keeps inline (0: never); at most {@link Wire#MAX_INLINE_BYTES} and the block size */
    InlineValues(int max, long blockSize) {
        if (max < 0 || max > Wire.MAX_INLINE_BYTES || max > blockSize) {
            throw new CreelException(ErrorCode.CONFIGURATION, "creel.namenode.inline.max must lie between 0 and "
                    + Math.min(Wire.MAX_INLINE_BYTES, blockSize) + " bytes (64 KiB and the block size): " + max);
        }
        this.max = max;
    }

    int max() {
        return max;
    }

    /** Whether a value of {@code length} bytes is created inline. */
    boolean fits(int length) {
        return length <= max;
    }

    /** Checks that {@code n} may keep {@code data} inline. */
    void check(DataNode n, byte[] data) {
        if (data.length > max) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": " + data.length + " bytes cannot be "
                    + "kept inline; this namenode keeps at most " + max + " (creel.namenode.inline.max)");
        }
        if (n.inline == null && n.length > 0) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, n.path() + ": its " + n.length
                    + " committed bytes are in blocks; it cannot be committed inline");
        }
    }

    /** Makes {@code data} the node's whole inline content. */
    static void keep(DataNode n, byte[] data) {
        n.inline = data.length == 0 ? NO_BYTES : data;
    }

    /** The node's inline bytes, or {@code null} if it keeps none (or is a container). */
    static byte[] data(Node n) {
        return n instanceof DataNode d ? d.inline : null;
    }
}
