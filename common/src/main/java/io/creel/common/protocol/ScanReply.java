package io.creel.common.protocol;

import io.creel.common.namespace.NodeType;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Reply to {@link ScanRequest}: KeyValues of the Table in key order, and whether the Table has keys
 * after the last one. The namenode may return fewer than the limit to keep the reply small (values
 * kept inline travel in it); a scan that wants more asks again after the last key.
 *
 * @param entries the KeyValues, in key order
 * @param more    whether keys follow the last entry (or, with no entries, none is left out)
 */
public record ScanReply(List<Entry> entries, boolean more) implements Message {
    /**
     * One KeyValue.
     *
     * @param name the key
     * @param node the committed version of the key (its id, length, placement)
     * @param data its value when the namenode keeps it inline, else {@code null} (read it from its blocks)
     */
    public record Entry(String name, NodeInfo node, byte[] data) {
        public Entry {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(node, "node");
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e && e.name.equals(name) && e.node.equals(node) && Arrays.equals(e.data, data);
        }

        @Override
        public int hashCode() {
            return Objects.hash(name, node) * 31 + Arrays.hashCode(data);
        }

        @Override
        public String toString() {
            return "Entry[" + name + ", " + node + (data == null ? "" : ", " + data.length + " bytes inline") + "]";
        }
    }

    public ScanReply {
        entries = List.copyOf(entries);
        if (entries.size() > ScanRequest.MAX_LIMIT) {
            throw new IllegalArgumentException("a scan reply holds at most " + ScanRequest.MAX_LIMIT + " entries, not "
                    + entries.size());
        }
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeShort(entries.size());
        for (Entry e : entries) {
            Wire.writeString(out, e.name);
            e.node.encode(out);
            Wire.writeOptionalBytes(out, e.data);
        }
        Wire.writeBoolean(out, more);
    }

    public static ScanReply decode(ByteBuf in) {
        int n = Wire.readUnsignedShort(in, "scan.entries");
        if (n > ScanRequest.MAX_LIMIT) {
            throw new ProtocolException("scan reply: " + n + " entries, more than " + ScanRequest.MAX_LIMIT);
        }
        List<Entry> entries = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String name = Wire.readString(in, "scan.name");
            NodeInfo node = NodeInfo.decode(in);
            byte[] data = Wire.readOptionalBytes(in, "scan.data");
            if (node.type() != NodeType.KEYVALUE) {
                throw new ProtocolException("scan reply: entry " + name + " is a " + node.type().displayName()
                        + ", not a KeyValue");
            }
            if (data != null && data.length != node.length()) {
                throw new ProtocolException("scan reply: " + data.length + " bytes of inline data for key " + name
                        + " of length " + node.length());
            }
            entries.add(new Entry(name, node, data));
        }
        boolean more = Wire.readBoolean(in, "scan.more");
        Wire.expectEnd(in, "scan reply");
        return new ScanReply(entries, more);
    }
}
