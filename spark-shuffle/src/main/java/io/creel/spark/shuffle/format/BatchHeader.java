package io.creel.spark.shuffle.format;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The header before every batch of the merged layout: one map task attempt's bytes for one reduce
 * partition, appended to a lane's File of that partition. A reader walks a File batch by batch and
 * keeps a batch only if its map attempt is the one the driver registered, so failed, killed and
 * speculative attempts' batches are skipped.
 *
 * <pre>
 *  offset  size  field
 *   0       4    magic 0x43524C42 ("CRLB")
 *   4       4    map index (the map's partition index)
 *   8       8    map id (Spark's task attempt id, as the MapStatus carries it)
 *  16       4    payload length (bytes after this header)
 *  20       4    CRC32C of the payload
 *  24       4    CRC32C of bytes 0..23 (a torn or foreign header is never taken for a batch)
 * </pre>
 *
 * A flyweight codec: encoding writes into the caller's array, decoding reads fields out of it.
 */
public final class BatchHeader {
    /** Bytes of a header. */
    public static final int SIZE = 28;
    static final int MAGIC = 0x43524C42;

    private BatchHeader() {
    }

    /** Writes the header of a batch whose {@code length}-byte payload has checksum {@code payloadCrc}. */
    public static void encode(byte[] into, int offset, int mapIndex, long mapId, int length, int payloadCrc) {
        ByteBuffer b = ByteBuffer.wrap(into, offset, SIZE);
        b.putInt(MAGIC).putInt(mapIndex).putLong(mapId).putInt(length).putInt(payloadCrc);
        CRC32C crc = new CRC32C();
        crc.update(into, offset, SIZE - 4);
        b.putInt((int) crc.getValue());
    }

    /**
     * Checks the header at {@code offset}: its magic, its own checksum and a non-negative length.
     *
     * @throws CorruptMapOutputException naming {@code where} if it is not a valid header
     */
    public static void check(byte[] from, int offset, String where) {
        ByteBuffer b = ByteBuffer.wrap(from, offset, SIZE);
        int magic = b.getInt(offset);
        CRC32C crc = new CRC32C();
        crc.update(from, offset, SIZE - 4);
        if (magic != MAGIC || b.getInt(offset + 24) != (int) crc.getValue()) {
            throw new CorruptMapOutputException(where + ": not a batch header (magic " + Integer.toHexString(magic)
                    + ", checksum " + (b.getInt(offset + 24) == (int) crc.getValue() ? "valid" : "mismatch") + ")");
        }
        if (length(from, offset) < 0) {
            throw new CorruptMapOutputException(where + ": a batch of negative length " + length(from, offset));
        }
    }

    public static int mapIndex(byte[] from, int offset) {
        return ByteBuffer.wrap(from).getInt(offset + 4);
    }

    public static long mapId(byte[] from, int offset) {
        return ByteBuffer.wrap(from).getLong(offset + 8);
    }

    public static int length(byte[] from, int offset) {
        return ByteBuffer.wrap(from).getInt(offset + 16);
    }

    public static int payloadCrc(byte[] from, int offset) {
        return ByteBuffer.wrap(from).getInt(offset + 20);
    }
}
