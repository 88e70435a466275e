package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * What a writer holding a node's lease tells the namenode about its progress ({@link Kind}): publish
 * {@code length} bytes and keep writing, publish them and end the lease, or end the lease publishing
 * nothing more.
 */
public record CommitRequest(long nodeId, long lease, long length, Kind kind) implements Message {
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

    /** Publishes {@code length} bytes; the writer keeps the lease. */
    public static CommitRequest sync(long nodeId, long lease, long length) {
        return new CommitRequest(nodeId, lease, length, Kind.SYNC);
    }

    /** Publishes {@code length} bytes and ends the lease. */
    public static CommitRequest close(long nodeId, long lease, long length) {
        return new CommitRequest(nodeId, lease, length, Kind.CLOSE);
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
    }

    public static CommitRequest decode(ByteBuf in) {
        CommitRequest r = new CommitRequest(Wire.readLong(in, "commit.node"), Wire.readLong(in, "commit.lease"),
                Wire.readNonNegativeLong(in, "commit.length"), Kind.ofWire(Wire.readByte(in, "commit.kind")));
        Wire.expectEnd(in, "commit request");
        return r;
    }
}
