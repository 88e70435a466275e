package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * Nodes with lost data under a path, nodes whose blocks are short of copies, and the directory
 * records a dead storage server took along.
 *
 * @param checked          how many nodes with data were checked
 * @param damaged          each node that has blocks with no copy on a live storage server
 * @param records          each container whose directory records (what its listing reads) were on such a
 *                         server: still there (its listing fails), or moved since by the namenode
 * @param underReplicated  each node that has blocks with fewer copies on live, non-draining servers than
 *                         its replication factor ({@link Damaged#lostBlocks} counts those blocks)
 * @param replication      how restoring the factor goes, cluster-wide on this namenode
 */
public record FsckReply(long checked, List<Damaged> damaged, List<Records> records, List<Damaged> underReplicated,
                        ReplicationProgress replication) implements Message {
    /** A reply about data nodes only. */
    public FsckReply(long checked, List<Damaged> damaged) {
        this(checked, damaged, List.of(), List.of(), ReplicationProgress.NONE);
    }

    /** A reply without replication news. */
    public FsckReply(long checked, List<Damaged> damaged, List<Records> records) {
        this(checked, damaged, records, List.of(), ReplicationProgress.NONE);
    }

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

    /**
     * The directory records of one container that were on a dead server. No name is lost with them
     * (the namenode rewrites them from its namespace); what is lost is the listing, meanwhile.
     *
     * @param path          the container
     * @param names         names its records held
     * @param server        the server they were on, host:port with its state
     * @param movedTo       the live server they were rewritten on, host:port; empty while they are still
     *                      on {@code server}
     * @param unlistedMillis how long listings of the container failed: from the server's last heartbeat
     *                      to the move (to now, while not moved)
     */
    public record Records(String path, long names, String server, String movedTo, long unlistedMillis) {
        /** Whether the records are still on the dead server. */
        public boolean stuck() {
            return movedTo.isEmpty();
        }
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(checked);
        encodeDamaged(out, damaged);
        out.writeInt(records.size());
        for (Records r : records) {
            Wire.writeString(out, r.path());
            out.writeLong(r.names());
            Wire.writeString(out, r.server());
            Wire.writeString(out, r.movedTo());
            out.writeLong(r.unlistedMillis());
        }
        encodeDamaged(out, underReplicated);
        replication.encode(out);
    }

    private static void encodeDamaged(ByteBuf out, List<Damaged> list) {
        out.writeInt(list.size());
        for (Damaged d : list) {
            Wire.writeString(out, d.path());
            out.writeLong(d.lostBlocks());
            out.writeLong(d.totalBlocks());
            out.writeShort(d.servers().size());
            d.servers().forEach(s -> Wire.writeString(out, s));
        }
    }

    private static List<Damaged> decodeDamaged(ByteBuf in) {
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
        return List.copyOf(out);
    }

    public static FsckReply decode(ByteBuf in) {
        long checked = Wire.readNonNegativeLong(in, "fsck.checked");
        List<Damaged> out = decodeDamaged(in);
        int nr = Wire.readInt(in, "fsck.recordsCount", 0, MAX_ENTRIES);
        List<Records> records = new ArrayList<>(Math.min(nr, 1024));
        for (int i = 0; i < nr; i++) {
            records.add(new Records(Wire.readString(in, "fsck.records.path"),
                    Wire.readNonNegativeLong(in, "fsck.records.names"), Wire.readString(in, "fsck.records.server"),
                    Wire.readString(in, "fsck.records.movedTo"), Wire.readNonNegativeLong(in, "fsck.records.millis")));
        }
        List<Damaged> under = decodeDamaged(in);
        ReplicationProgress replication = ReplicationProgress.decode(in);
        Wire.expectEnd(in, "fsck reply");
        return new FsckReply(checked, out, List.copyOf(records), under, replication);
    }
}
