package io.creel.minicluster.cluster.model;

import java.util.Arrays;
import java.util.zip.CRC32;

/** Bytes compared by content, shown by length, checksum and (against another) the first difference. */
record Bytes(byte[] data) {
    static final Bytes EMPTY = new Bytes(new byte[0]);

    int length() {
        return data.length;
    }

    Bytes concat(Bytes more) {
        byte[] all = Arrays.copyOf(data, data.length + more.data.length);
        System.arraycopy(more.data, 0, all, data.length, more.data.length);
        return new Bytes(all);
    }

    Bytes range(long offset, int length) {
        return new Bytes(Arrays.copyOfRange(data, (int) offset, (int) offset + length));
    }

    /** The first offset where {@code this} and {@code other} differ, or -1. */
    int firstDifference(Bytes other) {
        return Arrays.mismatch(data, other.data);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Bytes b && Arrays.equals(data, b.data);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        CRC32 crc = new CRC32();
        crc.update(data);
        return data.length + " bytes, crc32 " + Long.toHexString(crc.getValue());
    }
}
