package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * Read the keys of an ordered Table in order: up to {@code limit} of its KeyValues from
 * {@code from} on, each with its value when the namenode keeps it inline. Keys are ordered by
 * their UTF-8 bytes, unsigned, byte by byte (which is Unicode code point order). A Table created
 * without {@code ordered} cannot be scanned: the namenode answers INVALID_ARGUMENT naming it.
 *
 * @param path  the Table's absolute path
 * @param from  the first key to consider; {@code ""} starts at the Table's first key
 * @param after whether {@code from} itself is left out (a scan continuing after the last key it got)
 * @param limit the most KeyValues to return, 1 to {@link #MAX_LIMIT}; the reply may hold fewer
 *              (see {@link ScanReply#more()})
 */
public record ScanRequest(String path, String from, boolean after, int limit) implements Message {
    /** The most KeyValues one request may ask for: a longer scan pages through several requests. */
    public static final int MAX_LIMIT = 1000;

    public ScanRequest {
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new IllegalArgumentException("scan limit " + limit + " is not within 1.." + MAX_LIMIT);
        }
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
        Wire.writeString(out, from);
        Wire.writeBoolean(out, after);
        out.writeShort(limit);
    }

    public static ScanRequest decode(ByteBuf in) {
        String path = Wire.readString(in, "scan.path");
        String from = Wire.readString(in, "scan.from");
        boolean after = Wire.readBoolean(in, "scan.after");
        int limit = Wire.readUnsignedShort(in, "scan.limit");
        Wire.expectEnd(in, "scan request");
        if (limit < 1 || limit > MAX_LIMIT) {
            throw new ProtocolException("scan request: limit " + limit + " is not within 1.." + MAX_LIMIT);
        }
        return new ScanRequest(path, from, after, limit);
    }
}
