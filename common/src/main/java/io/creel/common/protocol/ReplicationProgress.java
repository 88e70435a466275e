package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * What a namenode's replica repair knows: from its last walk of the namespace, the blocks short of
 * their replication factor (those of nodes still being written among them, repaired once closed)
 * and the blocks without any live copy; since the namenode started, the blocks it gave new copies,
 * the bytes it copied, and the repairs that failed, with the last reason.
 */
public record ReplicationProgress(long underReplicated, long waitingForWriter, long lost, long repairedBlocks,
                                  long copiedBytes, long failedRepairs, String lastProblem) implements Message {
    /** Nothing found, nothing done. */
    public static final ReplicationProgress NONE = new ReplicationProgress(0, 0, 0, 0, 0, 0, "");

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(underReplicated).writeLong(waitingForWriter).writeLong(lost).writeLong(repairedBlocks)
                .writeLong(copiedBytes).writeLong(failedRepairs);
        Wire.writeString(out, lastProblem.length() > 1000 ? lastProblem.substring(0, 1000) : lastProblem);
    }

    public static ReplicationProgress decode(ByteBuf in) {
        return new ReplicationProgress(Wire.readNonNegativeLong(in, "replication.under"),
                Wire.readNonNegativeLong(in, "replication.waiting"), Wire.readNonNegativeLong(in, "replication.lost"),
                Wire.readNonNegativeLong(in, "replication.repaired"), Wire.readNonNegativeLong(in, "replication.bytes"),
                Wire.readNonNegativeLong(in, "replication.failed"), Wire.readString(in, "replication.problem"));
    }
}
