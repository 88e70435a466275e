package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * What a writer holding a node's lease tells the namenode about its progress ({@link Kind}): publish
 * {@code length} bytes and keep writing, publish them and end the lease, or end the lease publishing
 * nothing more.
 *
 * <p>With {@code data} (SYNC or CLOSE only), the node's whole content is those bytes, kept inline by
 * the namenode instead of in blocks ({@code length} is their count); the writer may do so while the
 * node is empty or already inline, up to the {@link OpenReply#inlineLimit()} it was given. Without
 * data the bytes are in the node's blocks, and a node that was inline moves to them.
 */
public record CommitRequest(long nodeId, long lease, long length, Kind kind, byte[] data) implements Message {
    /** What the commit does; the wire value is the ordinal. */
    public enum Kind {
        /** {@code length} bytes are now readable; the writer keeps its lease. */
        SYNC,
        /**
         * {@code length} bytes are readable and the lease ends; blocks beyond the length are freed.
         * For a KeyValue this makes the new value visible, replacing any old one atomically.
         */
        CLOSE,
        /**
         * The lease ends and nothing more is published ({@code length} is ignored): a File keeps the
         * length committed before, a KeyValue version is dropped and its key keeps its old value. A
         * writer that failed ends this way.
         */
        ABANDON;

        private static final Kind[] BY_WIRE = values();

        static Kind ofWire(byte b) {
            if (b < 0 || b >= BY_WIRE.length) {
                throw new ProtocolException("bad commit kind: " + b);
            }
            return BY_WIRE[b];
        }
    }

    public CommitRequest {
        if (data != null && (data.length != length || kind == Kind.ABANDON)) {
            throw new IllegalArgumentException("inline data of " + data.length + " bytes with a " + kind
                    + " commit of length " + length);
        }
    }

    /** A commit without inline data. */
    public CommitRequest(long nodeId, long lease, long length, Kind kind) {
        this(nodeId, lease, length, kind, null);
    }

    /** Publishes {@code length} bytes; the writer keeps the lease. */
    public static CommitRequest sync(long nodeId, long lease, long length) {
        return new CommitRequest(nodeId, lease, length, Kind.SYNC);
    }

    /** Publishes {@code length} bytes and ends the lease. */
    public static CommitRequest close(long nodeId, long lease, long length) {
        return new CommitRequest(nodeId, lease, length, Kind.CLOSE);
    }

    /** Publishes {@code data} as the node's whole content, kept inline; with {@code close} the lease ends. */
    public static CommitRequest inline(long nodeId, long lease, byte[] data, boolean close) {
        return new CommitRequest(nodeId, lease, data.length, close ? Kind.CLOSE : Kind.SYNC, data);
    }

    /** Ends the lease without publishing anything more. */
    public static CommitRequest abandon(long nodeId, long lease) {
        return new CommitRequest(nodeId, lease, 0, Kind.ABANDON);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeId);
        out.writeLong(lease);
        out.writeLong(length);
        out.writeByte(kind.ordinal());
        Wire.writeOptionalBytes(out, data);
    }

    public static CommitRequest decode(ByteBuf in) {
        long nodeId = Wire.readLong(in, "commit.node");
        long lease = Wire.readLong(in, "commit.lease");
        long length = Wire.readNonNegativeLong(in, "commit.length");
        Kind kind = Kind.ofWire(Wire.readByte(in, "commit.kind"));
        byte[] data = Wire.readOptionalBytes(in, "commit.data");
        if (data != null && (data.length != length || kind == Kind.ABANDON)) {
            throw new ProtocolException("commit: " + data.length + " bytes of inline data with a " + kind
                    + " of length " + length);
        }
        Wire.expectEnd(in, "commit request");
        return new CommitRequest(nodeId, lease, length, kind, data);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CommitRequest r && r.nodeId == nodeId && r.lease == lease && r.length == length
                && r.kind == kind && Arrays.equals(r.data, data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(nodeId, lease, length, kind) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "CommitRequest[node=" + nodeId + ", lease=" + lease + ", length=" + length + ", " + kind
                + (data == null ? "" : ", inline") + "]";
    }
}
