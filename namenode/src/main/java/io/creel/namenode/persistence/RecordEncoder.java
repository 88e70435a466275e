package io.creel.namenode.persistence;

import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.protocol.Wire;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.retry.LoggedAnswer;
import io.netty.buffer.ByteBuf;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * Encodes namespace changes as framed log records ({@link LogFormat}) into a buffer. Storage servers
 * are named by a {@link LogFormat#SERVER} record the first time a file mentions them (by identity:
 * host, port, token); later records refer to that number. Not thread-safe.
 */
final class RecordEncoder {
    private record Identity(String host, int port, long token) {
    }

    private final ByteBuf out;
    private final Map<Identity, Integer> servers = new HashMap<>();
    private final CRC32C crc = new CRC32C();
    private long maxTag;

    /** Appends to {@code out}. */
    RecordEncoder(ByteBuf out) {
        this.out = out;
    }

    ByteBuf buffer() {
        return out;
    }

    /** Forgets the server numbers: the next file starts without them. */
    void newFile() {
        servers.clear();
    }

    /** The largest tag encoded so far. */
    long maxTag() {
        return maxTag;
    }

    /** The format version record that starts every file. */
    void format() {
        int at = begin(LogFormat.FORMAT);
        out.writeShort(LogFormat.VERSION);
        end(at);
    }

    void head(long segment, long rootId, long lastId, long maxTagSoFar) {
        int at = begin(LogFormat.HEAD);
        out.writeLong(segment).writeLong(rootId).writeLong(lastId).writeLong(maxTagSoFar);
        end(at);
    }

    void imageEnd(long records) {
        int at = begin(LogFormat.IMAGE_END);
        out.writeLong(records);
        end(at);
    }

    void created(long id, NodeType type, byte[] name, long parentId, String storageClass, String locationClass,
                 int replication, boolean enumerable, boolean pending, int slot, long modified) {
        int at = begin(LogFormat.CREATED);
        out.writeLong(id).writeByte(type.code());
        writeName(name);
        out.writeLong(parentId);
        Wire.writeString(out, storageClass);
        Wire.writeString(out, locationClass);
        Wire.writeBoolean(out, enumerable);
        Wire.writeBoolean(out, pending);
        out.writeInt(slot).writeLong(modified);
        end(at);
        if (replication != 0) {
            int r = begin(LogFormat.REPLICATION);
            out.writeLong(id).writeByte(replication);
            end(r);
        }
    }

    void block(long nodeId, int index, AllocatedBlock block) {
        int ref = serverRef(block.server());
        int at = begin(LogFormat.BLOCK);
        out.writeLong(nodeId).writeInt(index).writeInt(ref).writeLong(block.blockNumber()).writeLong(block.tag());
        end(at);
        if (!block.others().isEmpty()) {
            int[] refs = new int[block.others().size()];
            for (int i = 0; i < refs.length; i++) {
                refs[i] = serverRef(block.others().get(i).server()); // may write SERVER records: before COPIES begins
            }
            int copies = begin(LogFormat.COPIES);
            out.writeLong(nodeId).writeInt(index).writeByte(refs.length);
            for (int i = 0; i < refs.length; i++) {
                io.creel.common.protocol.BlockCopy c = block.others().get(i);
                out.writeInt(refs[i]).writeLong(c.blockNumber()).writeLong(c.tag());
                if (Long.compareUnsigned(c.tag(), maxTag) > 0) {
                    maxTag = c.tag();
                }
            }
            end(copies);
        }
        if (Long.compareUnsigned(block.tag(), maxTag) > 0) {
            maxTag = block.tag();
        }
    }

    void trimmed(long nodeId, int keep) {
        int at = begin(LogFormat.TRIMMED);
        out.writeLong(nodeId).writeInt(keep);
        end(at);
    }

    void length(long nodeId, long length, long modified) {
        int at = begin(LogFormat.LENGTH);
        out.writeLong(nodeId).writeLong(length).writeLong(modified);
        end(at);
    }

    void inline(long nodeId, byte[] data, long modified) {
        int at = begin(LogFormat.INLINE);
        out.writeLong(nodeId).writeLong(modified);
        Wire.writeOptionalBytes(out, data);
        end(at);
    }

    void published(long versionId, int slot, long modified) {
        int at = begin(LogFormat.PUBLISHED);
        out.writeLong(versionId).writeInt(slot).writeLong(modified);
        end(at);
    }

    void removed(long nodeId) {
        int at = begin(LogFormat.REMOVED);
        out.writeLong(nodeId);
        end(at);
    }

    void moved(long nodeId, long newParentId, byte[] name, int slot, long modified) {
        int at = begin(LogFormat.MOVED);
        out.writeLong(nodeId).writeLong(newParentId);
        writeName(name);
        out.writeInt(slot).writeLong(modified);
        end(at);
    }

    void ordered(long nodeId) {
        int at = begin(LogFormat.ORDERED);
        out.writeLong(nodeId);
        end(at);
    }

    void owned(long nodeId, long ownerHigh, long ownerLow, long graceMillis) {
        int at = begin(LogFormat.OWNED);
        out.writeLong(nodeId).writeLong(ownerHigh).writeLong(ownerLow).writeLong(graceMillis);
        end(at);
    }

    void access(long nodeId, String owner, String group, int mode) {
        int at = begin(LogFormat.ACCESS);
        out.writeLong(nodeId);
        Wire.writeString(out, owner);
        Wire.writeString(out, group);
        out.writeShort(mode);
        end(at);
    }

    void credential(String name, String id, java.util.List<String> groups, long createdMillis) {
        int at = begin(LogFormat.CREDENTIAL);
        Wire.writeString(out, name);
        Wire.writeString(out, id);
        out.writeByte(groups.size());
        groups.forEach(g -> Wire.writeString(out, g));
        out.writeLong(createdMillis);
        end(at);
    }

    void revoked(String name) {
        int at = begin(LogFormat.CREDENTIAL_REVOKED);
        Wire.writeString(out, name);
        end(at);
    }

    void answer(LoggedAnswer a) {
        int at = begin(LogFormat.ANSWER);
        a.identity().encode(out);
        out.writeByte(a.opcode().code()).writeLong(a.atMillis());
        Wire.writeOptionalBytes(out, a.reply());
        end(at);
    }

    void withdrawn(RequestIdentity request) {
        int at = begin(LogFormat.ANSWER_WITHDRAWN);
        request.encode(out);
        end(at);
    }

    /** A name as a wire string: u16 length, then its UTF-8 bytes. */
    private void writeName(byte[] name) {
        out.writeShort(name.length);
        out.writeBytes(name);
    }

    private int serverRef(StorageServerInfo s) {
        Identity id = new Identity(s.host(), s.port(), s.localToken());
        Integer ref = servers.get(id);
        if (ref == null) {
            ref = servers.size() + 1;
            servers.put(id, ref);
            int at = begin(LogFormat.SERVER);
            out.writeInt(ref);
            // Server ids are per run; the identity and the rest of the description are what count.
            s.withServerId(0).encode(out);
            end(at);
        }
        return ref;
    }

    /** Reserves the frame header and writes the type; returns where the frame starts. */
    private int begin(int type) {
        int at = out.writerIndex();
        out.writeInt(0).writeInt(0).writeByte(type);
        return at;
    }

    /** Fills in the length and checksum of the frame that started at {@code at}. */
    private void end(int at) {
        int bodyStart = at + LogFormat.FRAME_HEADER;
        int length = out.writerIndex() - bodyStart;
        crc.reset();
        crc.update(out.nioBuffer(bodyStart, length));
        out.setInt(at, length);
        out.setInt(at + 4, (int) crc.getValue());
    }
}
