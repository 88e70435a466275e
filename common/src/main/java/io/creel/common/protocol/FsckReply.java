package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Nodes with lost data under a path.
 *
 * @param checked how many nodes with data were checked
 * @param damaged each node that has blocks on a storage server that is dead or gone
 */
public record FsckReply(long checked, List<Damaged> damaged) implements Message {
    /** Most entries one reply carries; {@code truncated} says more were found. */
    public static final int MAX_ENTRIES = 10_000;

    /**
     * One damaged node.
     *
     * @param path        the node
     * @param lostBlocks  blocks on unavailable servers
     * @param totalBlocks all its blocks
     * @param servers     the unavailable servers, host:port with their state
     */
    public record Damaged(String path, long lostBlocks, long totalBlocks, List<String> servers) {
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(checked);
        out.writeInt(damaged.size());
        for (Damaged d : damaged) {
            Wire.writeString(out, d.path());
            out.writeLong(d.lostBlocks());
            out.writeLong(d.totalBlocks());
            out.writeShort(d.servers().size());
            d.servers().forEach(s -> Wire.writeString(out, s));
        }
    }

    public static FsckReply decode(ByteBuf in) {
        long checked = Wire.readNonNegativeLong(in, "fsck.checked");
        int n = Wire.readInt(in, "fsck.count", 0, MAX_ENTRIES);
        List<Damaged> out = new ArrayList<>(Math.min(n, 1024));
        for (int i = 0; i < n; i++) {
            String path = Wire.readString(in, "fsck.path");
            long lost = Wire.readNonNegativeLong(in, "fsck.lost");
            long total = Wire.readNonNegativeLong(in, "fsck.total");
            int ns = Wire.readUnsignedShort(in, "fsck.serverCount");
            List<String> servers = new ArrayList<>(Math.min(ns, 64));
            for (int j = 0; j < ns; j++) {
                servers.add(Wire.readString(in, "fsck.server"));
            }
            out.add(new Damaged(path, lost, total, List.copyOf(servers)));
        }
        Wire.expectEnd(in, "fsck reply");
        return new FsckReply(checked, List.copyOf(out));
    }
}
