package io.creel.common.protocol;

import io.creel.common.namespace.BlockLayout;
import io.creel.common.namespace.NodeType;
import io.netty.buffer.ByteBuf;

/**
 * What the namenode says about a node.
 *
 * @param id            the node's identity; a replaced KeyValue gets a new id (each value version is a node)
 * @param type          node type
 * @param length        readable bytes: a File's synced length, a value's committed length, or for a
 *                      container the bytes of its record array
 * @param storageClass  the node's own storage class, or "" when it inherits
 * @param locationClass the node's placement preference (a host name), or ""
 * @param enumerable    whether the node's children are listed (false only for non-enumerable Tables)
 * @param modifiedMillis last change, epoch milliseconds
 * @param writing        whether a writer currently holds the node's lease
 * @param replication    copies of each block as set on the node or its nearest ancestor that sets
 *                       one; 0 when none does (its storage class's factor applies)
 * @param expiry         the node's owner and grace if it expires by itself ({@link Expiry}), else {@code null}
 * @param firstBlockSize bytes of the node's block 0 (0 when it has none): shorter than
 *                       {@code creel.block.size} when block 0 is a block of a size class. Every later
 *                       block is a whole one; see {@link #layout}
 * @param access         the node's owner, group and mode when the namenode enforces permissions, else
 *                       {@code null} (everyone may do anything)
 */
public record NodeInfo(long id, NodeType type, long length, String storageClass, String locationClass,
                       boolean enumerable, long modifiedMillis, boolean writing, int replication, NodeExpiry expiry,
                       int firstBlockSize, NodeAccess access)
        implements Message {
    /** A node whose first block, if any, is a whole block, without permissions. */
    public NodeInfo(long id, NodeType type, long length, String storageClass, String locationClass,
                    boolean enumerable, long modifiedMillis, boolean writing, int replication, NodeExpiry expiry) {
        this(id, type, length, storageClass, locationClass, enumerable, modifiedMillis, writing, replication, expiry,
                0, null);
    }

    /** A node without permissions (a namenode that does not enforce them). */
    public NodeInfo(long id, NodeType type, long length, String storageClass, String locationClass,
                    boolean enumerable, long modifiedMillis, boolean writing, int replication, NodeExpiry expiry,
                    int firstBlockSize) {
        this(id, type, length, storageClass, locationClass, enumerable, modifiedMillis, writing, replication, expiry,
                firstBlockSize, null);
    }

    /** A node that does not expire, whose replication is not set on it or any ancestor. */
    public NodeInfo(long id, NodeType type, long length, String storageClass, String locationClass,
                    boolean enumerable, long modifiedMillis, boolean writing) {
        this(id, type, length, storageClass, locationClass, enumerable, modifiedMillis, writing, 0, null);
    }

    /** A node that does not expire. */
    public NodeInfo(long id, NodeType type, long length, String storageClass, String locationClass,
                    boolean enumerable, long modifiedMillis, boolean writing, int replication) {
        this(id, type, length, storageClass, locationClass, enumerable, modifiedMillis, writing, replication, null);
    }

    /** This node with {@code e} as its expiry. */
    public NodeInfo withExpiry(NodeExpiry e) {
        return new NodeInfo(id, type, length, storageClass, locationClass, enumerable, modifiedMillis, writing,
                replication, e, firstBlockSize, access);
    }

    /** This node with {@code a} as its owner, group and mode. */
    public NodeInfo withAccess(NodeAccess a) {
        return new NodeInfo(id, type, length, storageClass, locationClass, enumerable, modifiedMillis, writing,
                replication, expiry, firstBlockSize, a);
    }

    /** How this node's bytes map to its blocks in a cluster of {@code blockSize}-byte blocks. */
    public BlockLayout layout(long blockSize) {
        return firstBlockSize == 0 || firstBlockSize >= blockSize ? BlockLayout.uniform(blockSize)
                : new BlockLayout(firstBlockSize, blockSize);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeLong(id);
        out.writeByte(type.code());
        out.writeLong(length);
        Wire.writeString(out, storageClass);
        Wire.writeString(out, locationClass);
        Wire.writeBoolean(out, enumerable);
        out.writeLong(modifiedMillis);
        Wire.writeBoolean(out, writing);
        out.writeByte(replication);
        Wire.writeBoolean(out, expiry != null);
        if (expiry != null) {
            expiry.encode(out);
        }
        out.writeInt(firstBlockSize);
        Wire.writeBoolean(out, access != null);
        if (access != null) {
            access.encode(out);
        }
    }

    public static NodeInfo decode(ByteBuf in) {
        long id = Wire.readLong(in, "node.id");
        int typeCode = Wire.readByte(in, "node.type");
        NodeType type;
        try {
            type = NodeType.ofCode(typeCode);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("unknown node type " + typeCode);
        }
        return new NodeInfo(id, type, Wire.readNonNegativeLong(in, "node.length"),
                Wire.readString(in, "node.storageClass"), Wire.readString(in, "node.locationClass"),
                Wire.readBoolean(in, "node.enumerable"), Wire.readLong(in, "node.modified"),
                Wire.readBoolean(in, "node.writing"), Wire.readByte(in, "node.replication"),
                Wire.readBoolean(in, "node.expires") ? NodeExpiry.decode(in) : null,
                Wire.readInt(in, "node.firstBlockSize", 0, 1 << 30),
                Wire.readBoolean(in, "node.access") ? NodeAccess.decode(in) : null);
    }
}
