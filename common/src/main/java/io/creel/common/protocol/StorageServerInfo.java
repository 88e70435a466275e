package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Collections;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A storage server as it registers and as clients see it in block locations.
 *
 * <p>The fixed fields are what every server has. What only some transports need to reach it (the
 * files a same-host client maps, an RDMA key, an NVMe-oF target) travels in {@code attributes},
 * named by the module that puts it there ({@code local.data.path}, {@code rdma.port}, ...), so a
 * new tier or transport adds attributes without changing this message.
 *
 * @param serverId     assigned by the namenode at registration (0 in a register request)
 * @param tier         the tier implementation ("dram", "disk"), which picks the client transports
 * @param storageClass the class its blocks belong to
 * @param host         host name clients connect to
 * @param port         the server's port (control requests, and block requests over TCP)
 * @param hostId       identity of the machine (for same-host placement preference)
 * @param blockCount   blocks exported
 * @param blockSize    bytes per block
 * @param localToken   random identity of the server's medium (its tag file carries it too): a
 *                     same-host client that finds it in the file it opened knows the file is the
 *                     server's, and namenodes recognise a restarted persistent server by it
 * @param attributes   transport-specific ways to reach the server, by name (sorted, immutable)
 */
public record StorageServerInfo(int serverId, String tier, String storageClass, String host, int port,
                                String hostId, long blockCount, int blockSize, long localToken,
                                SortedMap<String, String> attributes) implements Message {
    /** Most attributes a server may carry; a description is small, and a hostile one must stay small. */
    public static final int MAX_ATTRIBUTES = 64;

    public StorageServerInfo {
        attributes = Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    }

    /** A description with these attributes (any map; kept sorted). */
    public static StorageServerInfo of(int serverId, String tier, String storageClass, String host, int port,
                                       String hostId, long blockCount, int blockSize, long localToken,
                                       Map<String, String> attributes) {
        return new StorageServerInfo(serverId, tier, storageClass, host, port, hostId, blockCount, blockSize,
                localToken, new TreeMap<>(attributes));
    }

    public StorageServerInfo withServerId(int id) {
        return new StorageServerInfo(id, tier, storageClass, host, port, hostId, blockCount, blockSize, localToken,
                attributes);
    }

    /** The same server with {@code more} attributes added (replacing any of the same name). */
    public StorageServerInfo withAttributes(Map<String, String> more) {
        TreeMap<String, String> all = new TreeMap<>(attributes);
        all.putAll(more);
        return new StorageServerInfo(serverId, tier, storageClass, host, port, hostId, blockCount, blockSize,
                localToken, all);
    }

    /** The attribute {@code name}, or "" if the server does not have it. */
    public String attribute(String name) {
        return attributes.getOrDefault(name, "");
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
        out.writeLong(localToken);
        out.writeShort(attributes.size());
        for (Map.Entry<String, String> a : attributes.entrySet()) {
            Wire.writeString(out, a.getKey());
            Wire.writeString(out, a.getValue());
        }
    }

    public static StorageServerInfo decode(ByteBuf in) {
        int serverId = Wire.readInt(in, "server.id");
        String tier = Wire.readString(in, "server.tier");
        String storageClass = Wire.readString(in, "server.class");
        String host = Wire.readString(in, "server.host");
        int port = Wire.readUnsignedShort(in, "server.port");
        String hostId = Wire.readString(in, "server.hostId");
        long blockCount = Wire.readNonNegativeLong(in, "server.blockCount");
        int blockSize = Wire.readInt(in, "server.blockSize", 512, 1 << 30);
        long token = Wire.readLong(in, "server.localToken");
        int n = Wire.readUnsignedShort(in, "server.attributes");
        if (n > MAX_ATTRIBUTES) {
            throw new ProtocolException("server.attributes: " + n + " attributes, at most " + MAX_ATTRIBUTES);
        }
        TreeMap<String, String> attributes = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            String name = Wire.readString(in, "server.attribute.name");
            if (attributes.put(name, Wire.readString(in, "server.attribute.value")) != null) {
                throw new ProtocolException("server.attributes: " + name + " appears twice");
            }
        }
        return new StorageServerInfo(serverId, tier, storageClass, host, port, hostId, blockCount, blockSize, token,
                attributes);
    }
}
