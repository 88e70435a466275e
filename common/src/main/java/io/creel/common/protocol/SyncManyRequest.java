package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Several SYNC commits in one request: each entry publishes a length of one File or KeyValue whose
 * write lease the sender holds, as {@link CommitRequest#sync} would, so a writer with many nodes open
 * (a shuffle map task appending to one File per reduce partition) publishes them all in one round
 * trip. Entries are applied in order and each on its own: one that fails (answered in its
 * {@link SyncManyReply.Result}) does not stop the others.
 *
 * <p>An entry with {@code appended} bytes extends a node kept inline: its content becomes what was
 * committed ({@code length - appended.length} bytes) followed by {@code appended}, so a growing small
 * node sends only what is new. Every entry is idempotent: an entry whose {@code length} is already
 * the node's committed length changes nothing, so a retry of the whole request (after a lost
 * connection or a namenode restart) is harmless.
 */
public record SyncManyRequest(List<Entry> entries) implements Message {
    /** The most entries in one request; a sender with more splits them. */
    public static final int MAX_ENTRIES = 4096;

    /**
     * One node's sync.
     *
     * @param nodeId   the File or KeyValue
     * @param lease    its write lease, held by the sender
     * @param length   the length to publish
     * @param appended bytes appended to the node's inline content ending at {@code length}, or
     *                 {@code null} when the bytes are in the node's blocks
     */
    public record Entry(long nodeId, long lease, long length, byte[] appended) {
        public Entry {
            if (length < 0 || (appended != null && appended.length > length)) {
                throw new IllegalArgumentException("a sync of length " + length + " cannot end with "
                        + (appended == null ? 0 : appended.length) + " appended bytes");
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.nodeId == nodeId && e.lease == lease && e.length == length
                    && Arrays.equals(e.appended, appended);
        }

        @Override
        public int hashCode() {
            return Objects.hash(nodeId, lease, length) * 31 + Arrays.hashCode(appended);
        }

        @Override
        public String toString() {
            return "Entry[node=" + nodeId + ", length=" + length
                    + (appended == null ? "" : ", " + appended.length + " appended inline") + "]";
        }
    }

    public SyncManyRequest {
        entries = List.copyOf(entries);
        if (entries.isEmpty() || entries.size() > MAX_ENTRIES) {
            throw new IllegalArgumentException("a sync-many request holds 1.." + MAX_ENTRIES + " entries, not "
                    + entries.size());
        }
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(entries.size());
        for (Entry e : entries) {
            out.writeLong(e.nodeId());
            out.writeLong(e.lease());
            out.writeLong(e.length());
            Wire.writeOptionalBytes(out, e.appended());
        }
    }

    public static SyncManyRequest decode(ByteBuf in) {
        int n = Wire.readInt(in, "syncMany.entries", 1, MAX_ENTRIES);
        // Each entry takes at least 28 bytes: a count the frame cannot hold is refused before allocating for it.
        Wire.need(in, n * 28, "syncMany.entries");
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long nodeId = Wire.readLong(in, "syncMany.node");
            long lease = Wire.readLong(in, "syncMany.lease");
            long length = Wire.readNonNegativeLong(in, "syncMany.length");
            byte[] appended = Wire.readOptionalBytes(in, "syncMany.appended");
            if (appended != null && appended.length > length) {
                throw new ProtocolException("sync-many: " + appended.length + " bytes appended with a length of "
                        + length);
            }
            entries.add(new Entry(nodeId, lease, length, appended));
        }
        Wire.expectEnd(in, "sync-many request");
        return new SyncManyRequest(entries);
    }
}
