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
 * @param onDemand      for a File: created without its first block, which its writer allocates when
 *                      its bytes first need one (a File expected to stay inline, or one of many a
 *                      writer opens at once); on the wire a flag beside {@code ordered}
 * @param sizeHint      the bytes the File or KeyValue is expected to hold, or 0 when unknown: the
 *                      namenode sizes its first block by it (a block of a size class, see
 *                      {@code creel.namenode.first.block.size}). Only space depends on it: a node that
 *                      outgrows its first block goes on in whole blocks.
 */
public record CreateRequest(String path, NodeType type, String storageClass, String locationClass,
                            boolean enumerable, byte[] value, int replication, Expiry expiry, boolean ordered,
                            boolean onDemand, long sizeHint)
        implements Message {
    private static final int ORDERED = 1;
    private static final int ON_DEMAND = 2;

    public CreateRequest {
        expiry = expiry == null ? Expiry.NONE : expiry;
        if (sizeHint < 0) {
            throw new IllegalArgumentException("size hint must not be negative: " + sizeHint);
        }
    }

    /** A create without a size hint. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value, int replication, Expiry expiry, boolean ordered, boolean onDemand) {
        this(path, type, storageClass, locationClass, enumerable, value, replication, expiry, ordered, onDemand, 0);
    }

    /** A create whose File (if it is one) takes its first block at once, without a size hint. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value, int replication, Expiry expiry, boolean ordered) {
        this(path, type, storageClass, locationClass, enumerable, value, replication, expiry, ordered, false, 0);
    }

    /** A create of a node that keeps no key order, with a size hint. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value, int replication, Expiry expiry, long sizeHint) {
        this(path, type, storageClass, locationClass, enumerable, value, replication, expiry, false, false, sizeHint);
    }

    /** A create of a node that keeps no key order, without a size hint. */
    public CreateRequest(String path, NodeType type, String storageClass, String locationClass, boolean enumerable,
                         byte[] value, int replication, Expiry expiry) {
        this(path, type, storageClass, locationClass, enumerable, value, replication, expiry, false, false, 0);
    }

    /** This create with {@code bytes} as its size hint. */
    public CreateRequest withSizeHint(long bytes) {
        return new CreateRequest(path, type, storageClass, locationClass, enumerable, value, replication, expiry,
                ordered, onDemand, bytes);
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
        out.writeByte((ordered ? ORDERED : 0) | (onDemand ? ON_DEMAND : 0));
        out.writeLong(sizeHint);
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
        String storageClass = Wire.readString(in, "create.class");
        String locationClass = Wire.readString(in, "create.location");
        boolean enumerable = Wire.readBoolean(in, "create.enumerable");
        byte[] value = Wire.readOptionalBytes(in, "create.value");
        int replication = Wire.readByte(in, "create.replication");
        Expiry expiry = Expiry.decode(in, "create.expiry");
        int flags = Wire.readByte(in, "create.flags");
        if ((flags & ~(ORDERED | ON_DEMAND)) != 0) {
            throw new ProtocolException("create.flags: unknown bits " + Integer.toBinaryString(flags & 0xff));
        }
        long sizeHint = Wire.readNonNegativeLong(in, "create.sizeHint");
        Wire.expectEnd(in, "create request");
        if (replication < 0 || replication > BlockLocation.MAX_COPIES) {
            throw new ProtocolException("create.replication: " + replication + " copies; 0 (inherit) to "
                    + BlockLocation.MAX_COPIES);
        }
        return new CreateRequest(path, type, storageClass, locationClass, enumerable, value, replication, expiry,
                (flags & ORDERED) != 0, (flags & ON_DEMAND) != 0, sizeHint);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CreateRequest r && r.path.equals(path) && r.type == type
                && r.storageClass.equals(storageClass) && r.locationClass.equals(locationClass)
                && r.enumerable == enumerable && Arrays.equals(r.value, value) && r.replication == replication
                && r.expiry.equals(expiry) && r.ordered == ordered && r.onDemand == onDemand
                && r.sizeHint == sizeHint;
    }

    @Override
    public int hashCode() {
        return Objects.hash(path, type, storageClass, locationClass, enumerable, expiry, ordered, onDemand, sizeHint)
                * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "CreateRequest[" + path + ", " + type + ", class=" + storageClass + ", location=" + locationClass
                + ", enumerable=" + enumerable + (ordered ? ", ordered" : "") + (onDemand ? ", blocks on demand" : "")
                + (replication == 0 ? "" : ", replication=" + replication)
                + (value == null ? "" : ", value of " + value.length + " bytes")
                + (expiry.expires() ? ", expiry=" + expiry : "") + (sizeHint == 0 ? "" : ", sizeHint=" + sizeHint) + "]";
    }
}
