package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Publish a writer's progress: {@code length} bytes of the node are now readable. For a KeyValue
 * this makes the new value visible (replacing any old one atomically). With {@code close} the
 * lease is released and blocks beyond the length are freed.
 */
public record CommitRequest(long nodeId, long lease, long length, boolean close) implements Message {
    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeId);
        out.writeLong(lease);
        out.writeLong(length);
        Wire.writeBoolean(out, close);
    }

    public static CommitRequest decode(ByteBuf in) {
        CommitRequest r = new CommitRequest(Wire.readLong(in, "commit.node"), Wire.readLong(in, "commit.lease"),
                Wire.readNonNegativeLong(in, "commit.length"), Wire.readBoolean(in, "commit.close"));
        Wire.expectEnd(in, "commit request");
        return r;
    }
}
