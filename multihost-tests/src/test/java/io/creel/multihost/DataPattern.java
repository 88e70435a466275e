package io.creel.multihost;

import java.nio.ByteBuffer;

/** The bytes test files hold: a function of (seed, offset), so any range can be checked on its own. */
final class DataPattern {
    private DataPattern() {
    }

    static byte at(long seed, long offset) {
        long z = seed * 0x9E3779B97F4A7C15L + (offset >>> 3);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        z ^= z >>> 31;
        return (byte) (z >>> ((offset & 7) * 8));
    }

    /** Puts the bytes at {@code offset..} into {@code buf} until it is full. */
    static void fill(long seed, long offset, ByteBuffer buf) {
        long o = offset;
        while (buf.hasRemaining()) {
            buf.put(at(seed, o++));
        }
    }

    /** The file offset of the first byte of {@code buf} (holding bytes from {@code offset}) that differs, or -1. */
    static long firstMismatch(long seed, long offset, ByteBuffer buf) {
        for (int i = buf.position(); i < buf.limit(); i++) {
            long o = offset + i - buf.position();
            if (buf.get(i) != at(seed, o)) {
                return o;
            }
        }
        return -1;
    }
}
