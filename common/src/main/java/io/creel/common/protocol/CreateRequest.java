package io.creel.common.protocol;

import io.creel.common.namespace.NodeType;
import io.netty.buffer.ByteBuf;

/**
 * Create a node. For a KeyValue whose key exists, this starts a replacement that becomes visible at commit.
 *
 * @param path          absolute path
 * @param type          node type
 * @param storageClass  class to allocate from, or "" to inherit from the parent
 * @param locationClass host to prefer for blocks, or "" for none
 * @param enumerable    for a Table: whether its keys are listed; ignored for other types
 */
public record CreateRequest(String path, NodeType type, String storageClass, String locationClass,
                            boolean enumerable) implements Message {
    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, path);
        out.writeByte(type.code());
        Wire.writeString(out, storageClass);
        Wire.writeString(out, locationClass);
        Wire.writeBoolean(out, enumerable);
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
                Wire.readString(in, "create.location"), Wire.readBoolean(in, "create.enumerable"));
        Wire.expectEnd(in, "create request");
        return r;
    }
}
