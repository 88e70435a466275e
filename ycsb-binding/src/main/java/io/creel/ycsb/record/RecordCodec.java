package io.creel.ycsb.record;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * A YCSB record as the bytes of one KeyValue:
 * <pre>
 * record = format (1 byte, {@value #FORMAT}) count (varint) field{count}
 * field  = nameLength (varint) name (UTF-8) valueLength (varint) value
 * varint = unsigned LEB128, at most 5 bytes, below 2^31
 * </pre>
 * A 10 × 100-byte record takes 1,000 value bytes plus 1 + 1 + 10 × (1 + 6 + 1) = 82 bytes of
 * framing with YCSB's field names ({@code field0}..{@code field9}). Decoding hands out views on
 * the value's array (no copy per field) and checks every length, so a truncated or foreign value
 * is a {@link MalformedRecordException}, never wrong fields.
 */
public final class RecordCodec {
    /** The format byte; another value means the bytes are not a record of this version. */
    public static final byte FORMAT = 1;

    private RecordCodec() {
    }

    /** Encodes {@code fields}, consuming their iterators; the buffer is ready to read. */
    public static ByteBuffer encode(Map<String, ByteIterator> fields) {
        List<byte[]> names = new ArrayList<>(fields.size());
        List<byte[]> values = new ArrayList<>(fields.size());
        for (Map.Entry<String, ByteIterator> e : fields.entrySet()) {
            names.add(e.getKey().getBytes(StandardCharsets.UTF_8));
            values.add(e.getValue().toArray());
        }
        return write(names, values);
    }

    /**
     * Adds the fields of {@code record} named in {@code wanted} (all of them if it is null) to
     * {@code out}; a wanted field the record does not have is left out, as a store without it would.
     */
    public static void decode(ByteBuffer record, Set<String> wanted, Map<String, ByteIterator> out) {
        Reader r = new Reader(record);
        for (int i = 0; i < r.count; i++) {
            String name = r.nextName();
            if (wanted == null || wanted.contains(name)) {
                out.put(name, new ByteArrayByteIterator(r.bytes, r.valueOffset, r.valueLength));
            }
        }
        r.expectEnd();
    }

    /**
     * The record with {@code updates} applied (their iterators consumed): fields it had keep their
     * place, updated ones get their new value, new ones are appended; every other field is kept
     * byte for byte.
     */
    public static ByteBuffer merge(ByteBuffer record, Map<String, ByteIterator> updates) {
        Reader r = new Reader(record);
        List<byte[]> names = new ArrayList<>(r.count + updates.size());
        List<byte[]> values = new ArrayList<>(r.count + updates.size());
        Set<String> replaced = new HashSet<>();
        for (int i = 0; i < r.count; i++) {
            String name = r.nextName();
            names.add(name.getBytes(StandardCharsets.UTF_8));
            ByteIterator update = updates.get(name);
            if (update != null) {
                values.add(update.toArray());
                replaced.add(name);
            } else {
                byte[] kept = new byte[r.valueLength];
                System.arraycopy(r.bytes, r.valueOffset, kept, 0, r.valueLength);
                values.add(kept);
            }
        }
        r.expectEnd();
        for (Map.Entry<String, ByteIterator> e : updates.entrySet()) {
            if (!replaced.contains(e.getKey())) {
                names.add(e.getKey().getBytes(StandardCharsets.UTF_8));
                values.add(e.getValue().toArray());
            }
        }
        return write(names, values);
    }

    private static ByteBuffer write(List<byte[]> names, List<byte[]> values) {
        int size = 1 + varintSize(names.size());
        for (int i = 0; i < names.size(); i++) {
            size = Math.addExact(size, varintSize(names.get(i).length) + names.get(i).length);
            size = Math.addExact(size, varintSize(values.get(i).length) + values.get(i).length);
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put(FORMAT);
        putVarint(out, names.size());
        for (int i = 0; i < names.size(); i++) {
            putVarint(out, names.get(i).length);
            out.put(names.get(i));
            putVarint(out, values.get(i).length);
            out.put(values.get(i));
        }
        return out.flip();
    }

    static int varintSize(int v) {
        int n = 1;
        while ((v >>>= 7) != 0) {
            n++;
        }
        return n;
    }

    static void putVarint(ByteBuffer out, int v) {
        while ((v & ~0x7F) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    /** Walks a record field by field, checking every length against the bytes that are there. */
    private static final class Reader {
        final byte[] bytes;
        final int end;
        final int count;
        /** Array index of the record's first byte; offsets in messages count from it. */
        private final int base;
        int pos;
        int valueOffset;
        int valueLength;
        private final Set<String> seen;

        Reader(ByteBuffer record) {
            if (record.hasArray()) {
                bytes = record.array();
                pos = record.arrayOffset() + record.position();
                end = pos + record.remaining();
            } else {
                bytes = new byte[record.remaining()];
                record.duplicate().get(bytes);
                pos = 0;
                end = bytes.length;
            }
            base = pos;
            if (pos >= end) {
                throw new MalformedRecordException("an empty value is not a record (no format byte)");
            }
            byte format = bytes[pos++];
            if (format != FORMAT) {
                throw new MalformedRecordException("format byte " + (format & 0xFF) + " at offset 0, expected "
                        + FORMAT + ": not a record written by this binding");
            }
            count = varint("field count");
            // Each field takes at least two bytes (two zero lengths): a larger count cannot be true.
            if (count > (end - pos) / 2) {
                throw new MalformedRecordException("field count " + count + " does not fit the " + (end - pos)
                        + " bytes that follow");
            }
            seen = new HashSet<>(Math.max(4, count * 2));
        }

        /** The next field's name; its value is then at {@link #valueOffset}, {@link #valueLength}. */
        String nextName() {
            int nameLength = varint("name length");
            int nameOffset = take(nameLength, "name");
            String name = new String(bytes, nameOffset, nameLength, StandardCharsets.UTF_8);
            if (!seen.add(name)) {
                throw new MalformedRecordException("field '" + name + "' appears twice (offset " + offset(nameOffset)
                        + ")");
            }
            valueLength = varint("value length of field '" + name + "'");
            valueOffset = take(valueLength, "value of field '" + name + "'");
            return name;
        }

        void expectEnd() {
            if (pos != end) {
                throw new MalformedRecordException((end - pos) + " bytes after the last of " + count + " fields");
            }
        }

        private int take(int length, String what) {
            if (length > end - pos) {
                throw new MalformedRecordException(what + " of " + length + " bytes at offset " + offset(pos)
                        + " runs past the end of the " + offset(end) + "-byte record");
            }
            int at = pos;
            pos += length;
            return at;
        }

        private int varint(String what) {
            int start = pos;
            int value = 0;
            for (int shift = 0; shift < 35; shift += 7) {
                if (pos >= end) {
                    throw new MalformedRecordException(what + " at offset " + offset(start) + " is cut off");
                }
                byte b = bytes[pos++];
                value |= (b & 0x7F) << shift;
                if ((b & 0x80) == 0) {
                    if (value < 0 || (shift == 28 && (b & 0x70) != 0)) {
                        break;
                    }
                    return value;
                }
            }
            throw new MalformedRecordException(what + " at offset " + offset(start) + " is not a length below 2^31");
        }

        private int offset(int arrayIndex) {
            return arrayIndex - base;
        }
    }
}
