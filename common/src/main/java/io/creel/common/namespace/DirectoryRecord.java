package io.creel.common.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * One fixed-size entry in a container's data: how enumeration works without the namenode. The
 * namenode gives each enumerable child a slot and writes its record at {@code slot * SIZE} of the
 * container's data; a delete clears the valid flag. Clients list a container by reading its data.
 *
 * <pre>
 *   0  uint8  valid (1) or free (0)
 *   1  uint8  node type code
 *   2  uint16 name length in bytes (1..255)
 *   4  int64  node id
 *  12  name, UTF-8, zero-padded to {@link #SIZE}
 * </pre>
 * 512 bytes keeps records sector-aligned for O_DIRECT media.
 */
public record DirectoryRecord(NodeType type, long nodeId, String name) {
    /** Bytes per record. */
    public static final int SIZE = 512;
    private static final int NAME_OFFSET = 12;

    /** Writes the record into {@code dst} at its position (advancing it by {@link #SIZE}). */
    public void writeTo(ByteBuffer dst) {
        writeTo(dst, type, nodeId, name.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes the record of a child named by UTF-8 bytes into {@code dst} at its position (advancing it by {@link #SIZE}). */
    public static void writeTo(ByteBuffer dst, NodeType type, long nodeId, byte[] n) {
        if (n.length == 0 || n.length > PathName.MAX_COMPONENT_BYTES) {
            throw new CreelException(ErrorCode.INVALID_NAME, new String(n, StandardCharsets.UTF_8)
                    + ": a name must be 1 to 255 bytes of UTF-8");
        }
        int start = dst.position();
        dst.put((byte) 1);
        dst.put((byte) type.code());
        dst.putShort((short) n.length);
        dst.putLong(nodeId);
        dst.put(n);
        while (dst.position() < start + SIZE) {
            dst.put((byte) 0);
        }
    }

    /** A buffer holding this record. */
    public ByteBuffer toBuffer() {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        writeTo(b);
        return b.flip();
    }

    /** A buffer holding the record of a child named by UTF-8 bytes. */
    public static ByteBuffer toBuffer(NodeType type, long nodeId, byte[] utf8Name) {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        writeTo(b, type, nodeId, utf8Name);
        return b.flip();
    }

    /** A buffer holding a cleared (free) record. */
    public static ByteBuffer cleared() {
        return ByteBuffer.allocate(SIZE);
    }

    /**
     * Reads the record at {@code src}'s position (advancing by {@link #SIZE}); {@code null} for a
     * free slot or one whose bytes do not form a valid record (a torn or garbage slot is skipped, not fatal),
     * including one whose name is not valid UTF-8 or not a valid name.
     */
    public static DirectoryRecord readFrom(ByteBuffer src) {
        int start = src.position();
        try {
            if (src.remaining() < SIZE || src.get(start) != 1) {
                return null;
            }
            int typeCode = src.get(start + 1) & 0xff;
            int len = src.getShort(start + 2) & 0xffff;
            long id = src.getLong(start + 4);
            if (len == 0 || len > PathName.MAX_COMPONENT_BYTES) {
                return null;
            }
            NodeType type;
            try {
                type = NodeType.ofCode(typeCode);
            } catch (IllegalArgumentException e) {
                return null;
            }
            byte[] n = new byte[len];
            src.get(start + NAME_OFFSET, n);
            String name;
            try {
                // Strict: a garbage slot's bytes must not turn into a different, mangled name.
                name = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(n)).toString();
                PathName.checkComponent(name, name);
            } catch (CharacterCodingException | CreelException e) {
                return null;
            }
            return new DirectoryRecord(type, id, name);
        } finally {
            src.position(Math.min(src.limit(), start + SIZE));
        }
    }
}
