package io.creel.minicluster.cluster.model;

/** Bytes that differ per write and per offset, so a misplaced, foreign or stale byte never matches. */
final class Content {
    private Content() {
    }

    static byte at(long id, long offset) {
        long x = (offset + 1) * 0x9E3779B97F4A7C15L ^ id * 0xC2B2AE3D27D4EB4FL;
        x ^= x >>> 31;
        return (byte) (x ^ x >>> 17);
    }

    /** {@code size} bytes of write {@code id}, as they sit at {@code offset} of their node. */
    static Bytes of(long id, long offset, int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = at(id, offset + i);
        }
        return new Bytes(b);
    }
}
