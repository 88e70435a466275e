package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;

/**
 * A storage server as it registers and as clients see it in block locations.
 *
 * @param serverId    assigned by the namenode at registration (0 in a register request)
 * @param tier        the tier implementation ("dram", "disk"), which picks the client transports
 * @param storageClass the class its blocks belong to
 * @param host        host name clients connect to
 * @param port        data-plane port
 * @param hostId      identity of the machine (for same-host placement preference)
 * @param blockCount  blocks exported
 * @param blockSize   bytes per block
 * @param dataPath    file holding the block data, for same-host access ("" if none)
 * @param dataOffset  byte offset of block 0 in {@code dataPath}
 * @param tagPath     file holding the block tag table, for same-host access ("" if none)
 * @param tagOffset   byte offset of the tag table in {@code tagPath}
 * @param localToken  random identity written in the tag file header: a client that opens
 *                    {@code tagPath} and finds this token is on the same host as the server
 */
public record StorageServerInfo(int serverId, String tier, String storageClass, String host, int port,
                                String hostId, long blockCount, int blockSize, String dataPath, long dataOffset,
                                String tagPath, long tagOffset, long localToken) implements Message {

    public StorageServerInfo withServerId(int id) {
        return new StorageServerInfo(id, tier, storageClass, host, port, hostId, blockCount, blockSize, dataPath,
                dataOffset, tagPath, tagOffset, localToken);
    }

    /** host:port, the way errors and reports name a server. */
    public String address() {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(serverId);
        Wire.writeString(out, tier);
        Wire.writeString(out, storageClass);
        Wire.writeString(out, host);
        out.writeShort(port);
        Wire.writeString(out, hostId);
        out.writeLong(blockCount);
        out.writeInt(blockSize);
        Wire.writeString(out, dataPath);
        out.writeLong(dataOffset);
        Wire.writeString(out, tagPath);
        out.writeLong(tagOffset);
        out.writeLong(localToken);
    }

    public static StorageServerInfo decode(ByteBuf in) {
        return new StorageServerInfo(Wire.readInt(in, "server.id"), Wire.readString(in, "server.tier"),
                Wire.readString(in, "server.class"), Wire.readString(in, "server.host"),
                Wire.readUnsignedShort(in, "server.port"), Wire.readString(in, "server.hostId"),
                Wire.readNonNegativeLong(in, "server.blockCount"),
                Wire.readInt(in, "server.blockSize", 512, 1 << 30),
                Wire.readString(in, "server.dataPath"), Wire.readNonNegativeLong(in, "server.dataOffset"),
                Wire.readString(in, "server.tagPath"), Wire.readNonNegativeLong(in, "server.tagOffset"),
                Wire.readLong(in, "server.localToken"));
    }
}
