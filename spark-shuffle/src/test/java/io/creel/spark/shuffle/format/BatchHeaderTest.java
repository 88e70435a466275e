package io.creel.spark.shuffle.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The merged layout's batch header: what is written reads back, and anything else is refused. */
class BatchHeaderTest {
    @Test
    void aHeaderReadsBackAsWritten() {
        byte[] b = new byte[BatchHeader.SIZE + 10];
        BatchHeader.encode(b, 5, 1999, 1L << 40, 123_456, 0xCAFEBABE);
        BatchHeader.check(b, 5, "f");
        assertEquals(1999, BatchHeader.mapIndex(b, 5));
        assertEquals(1L << 40, BatchHeader.mapId(b, 5));
        assertEquals(123_456, BatchHeader.length(b, 5));
        assertEquals(0xCAFEBABE, BatchHeader.payloadCrc(b, 5));
    }

    @Test
    void aFlippedByteZerosOrANegativeLengthAreNoHeader() {
        byte[] b = new byte[BatchHeader.SIZE];
        BatchHeader.encode(b, 0, 3, 42, 100, 7);
        for (int i = 0; i < BatchHeader.SIZE; i++) {
            byte[] c = b.clone();
            c[i] ^= 0x10;
            int at = i;
            CorruptMapOutputException e = assertThrows(CorruptMapOutputException.class,
                    () -> BatchHeader.check(c, 0, "/s/part-0/e1-0"), "byte " + at);
            assertTrue(e.getMessage().startsWith("/s/part-0/e1-0: "), e.getMessage());
        }
        assertThrows(CorruptMapOutputException.class, () -> BatchHeader.check(new byte[BatchHeader.SIZE], 0, "f"));
        byte[] negative = new byte[BatchHeader.SIZE];
        BatchHeader.encode(negative, 0, 3, 42, -1, 7);
        assertThrows(CorruptMapOutputException.class, () -> BatchHeader.check(negative, 0, "f"));
    }
}
