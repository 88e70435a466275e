package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Ask where up to {@code count} consecutive blocks of a node live, from {@code firstIndex} on: a
 * read-only MAP for many blocks at once, so a sequential reader of a large node asks once per
 * {@code count} blocks instead of once per block. The reply may hold fewer (the node ends, or a
 * block past the first is on a server that is not live: the reader asks for that one alone and
 * gets MAP's error).
 */
public record LocateRequest(long nodeId, long firstIndex, int count) implements Message {
    /** The most blocks one request may ask for (a reply stays well inside a frame). */
    public static final int MAX_COUNT = 256;

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeId);
        out.writeLong(firstIndex);
        out.writeShort(count);
    }

    public static LocateRequest decode(ByteBuf in) {
        LocateRequest r = new LocateRequest(Wire.readLong(in, "locate.node"),
                Wire.readNonNegativeLong(in, "locate.first"), Wire.readUnsignedShort(in, "locate.count"));
        Wire.expectEnd(in, "locate request");
        if (r.count < 1 || r.count > MAX_COUNT) {
            throw new ProtocolException("locate request: count " + r.count + " is not within 1.." + MAX_COUNT);
        }
        return r;
    }
}
