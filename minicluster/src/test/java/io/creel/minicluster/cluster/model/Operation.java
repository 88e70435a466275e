package io.creel.minicluster.cluster.model;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.util.Arrays;

/** One step of a model run, as generated from the seed; {@code toString} is its line in the trace. */
sealed interface Operation {
    /** Creates a Directory, Table or Bag. */
    record Create(String path, NodeType type, String storageClass, boolean enumerable) implements Operation {
    }

    /**
     * Creates a File and writes {@code sizes} bytes in that many writes ({@code pipelined}: without
     * waiting for each), publishing with a sync after write {@code syncAfter} (-1: none), then closes.
     */
    record WriteFile(String path, String storageClass, int[] sizes, boolean pipelined, int syncAfter,
                     long content) implements Operation {
        @Override
        public String toString() {
            return "WriteFile[" + path + ", class '" + storageClass + "', sizes " + Arrays.toString(sizes)
                    + (pipelined ? " pipelined" : "") + ", sync after " + syncAfter + ", content " + content + "]";
        }
    }

    /** Opens a File for append, writes, closes (as {@link WriteFile}). */
    record Append(String path, int[] sizes, boolean pipelined, int syncAfter, long content) implements Operation {
        @Override
        public String toString() {
            return "Append[" + path + ", sizes " + Arrays.toString(sizes) + (pipelined ? " pipelined" : "")
                    + ", sync after " + syncAfter + ", content " + content + "]";
        }
    }

    /** Puts a value of {@code size} bytes under {@code key} of a Table (a replacement if it exists). */
    record PutValue(String table, String key, int size, long content) implements Operation {
    }

    record GetValue(String table, String key) implements Operation {
    }

    /** Looks a node up and reads {@code length} bytes at {@code offset}. */
    record Read(String path, long offset, int length) implements Operation {
    }

    record Delete(String path, boolean recursive) implements Operation {
    }

    record Move(String source, String target) implements Operation {
    }

    record Listing(String path) implements Operation {
    }

    /** Lists a Bag and reads it as one stream. */
    record BagRead(String path) implements Operation {
    }

    /** Opens a File for append and keeps the writer across the following steps. */
    record Hold(String path) implements Operation {
    }

    /** Writes to the held writer; with {@code sync} publishes what it wrote. */
    record HeldWrite(int size, boolean sync, long content) implements Operation {
    }

    /** Closes the held writer. */
    record HeldClose() implements Operation {
    }

    /** A call with a path that breaks a naming rule: it must fail with {@code expected}. */
    record BadPath(String path, String rule, ErrorCode expected) implements Operation {
        @Override
        public String toString() {
            String shown = path.length() > 60 ? path.substring(0, 40) + "...(" + path.length() + " chars)" : path;
            return "BadPath[" + rule + ": " + shown + " -> " + expected + "]";
        }
    }

    /** Compares every node's type, length, bytes and listing with the model. */
    record CheckAll() implements Operation {
    }
}
