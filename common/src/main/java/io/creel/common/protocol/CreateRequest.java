package io.creel.common.protocol;

import io.creel.common.namespace.NodeType;
import io.netty.buffer.ByteBuf;
import java.util.Arrays;
import java.util.Objects;

/**
 * Create a node. For a KeyValue whose key exists, this starts a replacement that becomes visible at commit.
 *
 * <p>A KeyValue create may carry the whole {@code value}: if the namenode keeps values of that size
 * inline (its {@code creel.namenode.inline.max}), the version is created, holds the value and is
 * committed in this one request — the reply holds no lease (and not the value again). If not, the
 * create is an ordinary one
 * (the reply holds a lease and a first block) and the writer writes the value to blocks.
 *
 * @param path          absolute path
 * @param type          node type
 * @param storageClass  class to allocate from, or "" to inherit from the parent
 * @param locationClass host to prefer for blocks, or "" for none
 * @param enumerable    for a Table: whether its keys are listed; ignored for other types
 * @param value         a KeyValue's whole value to commit at once, or {@code null}
 * @param replication   copies of each block (1 to {@link BlockLocation#MAX_COPIES}), or 0 to inherit
 *                      from the parent (else the storage class's factor)
 * @param expiry        whether and when the node goes away with its creator ({@link Expiry}; not
 *                      for a KeyValue, which each put replaces)
 * @param ordered       for a Table: whether it keeps its keys in order, so they can be scanned
 *                      ({@link ScanRequest}); only a Table may be created ordered
 */
public record CreateRequest(String path, NodeType type, String storageClass, String locationClass,
                            boolean enumerable, byte[] value, int replication, Expiry expiry, boolean ordered)
        implements Message {
    public CreateRequest {
        expiry = expiry == null ? Expiry.NONE : expiry;
    }

    /** A create of a node that keeps no key order (every node but an ordered Table). */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value, int replication, Expiry expiry) {
        this(path, type, storageClass, locationClass, enumerable, value, replication, expiry, false);
    }

    /** A create without a value. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable) {
        this(path, type, storageClass, locationClass, enumerable, null, 0, Expiry.NONE);
    }

    /** A create with inherited replication that does not expire. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value) {
        this(path, type, storageClass, locationClass, enumerable, value, 0, Expiry.NONE);
    }

    /** A create with inherited replication. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value, Expiry expiry) {
        this(path, type, storageClass, locationClass, enumerable, value, 0, expiry);
    }

    /** A create that does not expire. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value, int replication) {
        this(path, type, storageClass, locationClass, enumerable, value, replication, Expiry.NONE);
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
        out.writeByte(type.code());
        Wire.writeString(out, storageClass);
        Wire.writeString(out, locationClass);
        Wire.writeBoolean(out, enumerable);
        Wire.writeOptionalBytes(out, value);
        out.writeByte(replication);
        expiry.encode(out);
        Wire.writeBoolean(out, ordered);
    }

    public static CreateRequest decode(ByteBuf in) {
        String path = Wire.readString(in, "create.path");
        int t = Wire.readByte(in, "create.type");
        NodeType type;
        try {
            type = NodeType.ofCode(t);
        } catch (IllegalArgumentException e) {
            throw new ProtocolException("unknown node type " + t);
        }
        CreateRequest r = new CreateRequest(path, type, Wire.readString(in, "create.class"),
                Wire.readString(in, "create.location"), Wire.readBoolean(in, "create.enumerable"),
                Wire.readOptionalBytes(in, "create.value"), Wire.readByte(in, "create.replication"),
                Expiry.decode(in, "create.expiry"), Wire.readBoolean(in, "create.ordered"));
        Wire.expectEnd(in, "create request");
        if (r.replication < 0 || r.replication > BlockLocation.MAX_COPIES) {
            throw new ProtocolException("create.replication: " + r.replication + " copies; 0 (inherit) to "
                    + BlockLocation.MAX_COPIES);
        }
        return r;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CreateRequest r && r.path.equals(path) && r.type == type
                && r.storageClass.equals(storageClass) && r.locationClass.equals(locationClass)
                && r.enumerable == enumerable && Arrays.equals(r.value, value) && r.replication == replication
                && r.expiry.equals(expiry) && r.ordered == ordered;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, type, storageClass, locationClass, enumerable, expiry, ordered) * 31
                + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "CreateRequest[" + path + ", " + type + ", class=" + storageClass + ", location=" + locationClass
                + ", enumerable=" + enumerable + (ordered ? ", ordered" : "")
                + (replication == 0 ? "" : ", replication=" + replication)
                + (value == null ? "" : ", value of " + value.length + " bytes")
                + (expiry.expires() ? ", expiry=" + expiry : "") + "]";
    }
}
