package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * A namenode's view of the cluster: its node count, its storage classes in order, every storage
 * server, and how restoring the replication factor of its blocks goes.
 */
public record StatusReply(long nodeCount, List<String> storageClasses, List<ServerStatus> servers,
                          ReplicationProgress replication) implements Message {
    /** A view without replication news. */
    public StatusReply(long nodeCount, List<String> storageClasses, List<ServerStatus> servers) {
        this(nodeCount, storageClasses, servers, ReplicationProgress.NONE);
    }

    /** Most servers one reply may list. */
    public static final int MAX_SERVERS = 65536;

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(nodeCount);
        out.writeShort(storageClasses.size());
        storageClasses.forEach(c -> Wire.writeString(out, c));
        out.writeInt(servers.size());
        servers.forEach(s -> s.encode(out));
        replication.encode(out);
    }

    public static StatusReply decode(ByteBuf in) {
        long nodes = Wire.readNonNegativeLong(in, "status.nodes");
        int nc = Wire.readUnsignedShort(in, "status.classCount");
        List<String> classes = new ArrayList<>(Math.min(nc, 64));
        for (int i = 0; i < nc; i++) {
            classes.add(Wire.readString(in, "status.class"));
        }
        int ns = Wire.readInt(in, "status.serverCount", 0, MAX_SERVERS);
        List<ServerStatus> servers = new ArrayList<>(Math.min(ns, 1024));
        for (int i = 0; i < ns; i++) {
            servers.add(ServerStatus.decode(in));
        }
        ReplicationProgress replication = ReplicationProgress.decode(in);
        Wire.expectEnd(in, "status reply");
        return new StatusReply(nodes, List.copyOf(classes), List.copyOf(servers), replication);
    }
}
