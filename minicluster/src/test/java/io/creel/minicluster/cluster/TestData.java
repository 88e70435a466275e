package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;

/** Deterministic bytes that differ per stream and per offset, so any misplaced or foreign byte is caught. */
final class TestData {
    private TestData() {
    }

    static byte at(long seed, long offset) {
        long x = offset * 0x9E3779B97F4A7C15L + seed * 0xC2B2AE3D27D4EB4FL;
        return (byte) (x >>> 56 ^ x >>> 29);
    }

    /** Fills {@code dst} from its position to its limit with the bytes of stream {@code seed} starting at {@code offset}. */
    static void fill(ByteBuffer dst, long seed, long offset) {
        for (int i = dst.position(); i < dst.limit(); i++) {
            dst.put(i, at(seed, offset + i - dst.position()));
        }
    }

    static byte[] bytes(long seed, long offset, int length) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = at(seed, offset + i);
        }
        return b;
    }

    /** Checks {@code src} from position to limit holds stream {@code seed} from {@code offset}. */
    static void verify(ByteBuffer src, long seed, long offset, String what) {
        for (int i = src.position(); i < src.limit(); i++) {
            long off = offset + i - src.position();
            if (src.get(i) != at(seed, off)) {
                fail(what + ": wrong byte at offset " + off);
            }
        }
    }
}
