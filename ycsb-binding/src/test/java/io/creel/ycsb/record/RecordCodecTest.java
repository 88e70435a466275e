package io.creel.ycsb.record;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.RandomByteIterator;
import site.ycsb.StringByteIterator;

class RecordCodecTest {

    private static Map<String, ByteIterator> fields(Object... nameValue) {
        Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            Object v = nameValue[i + 1];
            m.put((String) nameValue[i], v instanceof byte[] b ? new ByteArrayByteIterator(b)
                    : new StringByteIterator((String) v));
        }
        return m;
    }

    private static Map<String, String> asStrings(Map<String, ByteIterator> m) {
        Map<String, String> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, v.toString()));
        return out;
    }

    private static Map<String, String> decodeAll(ByteBuffer record) {
        Map<String, ByteIterator> out = new LinkedHashMap<>();
        RecordCodec.decode(record, null, out);
        return asStrings(out);
    }

    @Test
    void aRecordDecodesToTheFieldsItWasEncodedFrom() {
        ByteBuffer r = RecordCodec.encode(fields("field0", "alpha", "field1", "", "naïve ✓", "utf-8 name"));
        assertEquals(Map.of("field0", "alpha", "field1", "", "naïve ✓", "utf-8 name"), decodeAll(r));
    }

    @Test
    void aRecordWithoutFieldsIsTwoBytes() {
        ByteBuffer r = RecordCodec.encode(Map.of());
        assertEquals(2, r.remaining());
        assertEquals(Map.of(), decodeAll(r));
    }

    @Test
    void aYcsbRecordOfTenHundredByteFieldsCarriesEightyTwoBytesOfFraming() {
        Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < 10; i++) {
            m.put("field" + i, new RandomByteIterator(100));
        }
        assertEquals(1000 + 82, RecordCodec.encode(m).remaining());
    }

    @Test
    void readingASubsetHandsOutOnlyTheNamedFieldsThatExist() {
        ByteBuffer r = RecordCodec.encode(fields("a", "1", "b", "2", "c", "3"));
        Map<String, ByteIterator> out = new HashMap<>();
        RecordCodec.decode(r, Set.of("c", "a", "missing"), out);
        assertEquals(Map.of("a", "1", "c", "3"), asStrings(out));
    }

    @Test
    void decodingLeavesTheBufferAsItWas() {
        ByteBuffer r = RecordCodec.encode(fields("a", "1"));
        int before = r.position();
        decodeAll(r);
        assertEquals(before, r.position());
        assertEquals(Map.of("a", "1"), decodeAll(r));
    }

    @Test
    void aRecordInsideALargerArrayOrInDirectMemoryDecodesTheSame() {
        ByteBuffer r = RecordCodec.encode(fields("a", "one", "b", "two"));
        byte[] padded = new byte[r.remaining() + 10];
        r.duplicate().get(padded, 7, r.remaining());
        ByteBuffer slice = ByteBuffer.wrap(padded, 7, r.remaining()).slice();
        assertEquals(Map.of("a", "one", "b", "two"), decodeAll(slice));
        ByteBuffer direct = ByteBuffer.allocateDirect(r.remaining()).put(r.duplicate()).flip();
        assertEquals(Map.of("a", "one", "b", "two"), decodeAll(direct));
    }

    @Test
    void mergeReplacesNamedFieldsKeepsTheOthersInPlaceAndAppendsNewOnes() {
        byte[] binary = new byte[256];
        for (int i = 0; i < binary.length; i++) {
            binary[i] = (byte) i;
        }
        ByteBuffer r = RecordCodec.encode(fields("a", "1", "bin", binary, "c", "3"));
        ByteBuffer merged = RecordCodec.merge(r, fields("c", "three", "d", "4"));
        Map<String, ByteIterator> out = new LinkedHashMap<>();
        RecordCodec.decode(merged, null, out);
        assertEquals(List.of("a", "bin", "c", "d"), List.copyOf(out.keySet()));
        assertArrayEquals(binary, out.get("bin").toArray());
        assertEquals("1", out.get("a").toString());
        assertEquals("three", out.get("c").toString());
        assertEquals("4", out.get("d").toString());
    }

    @Test
    void aValueThatIsNotARecordIsRefusedWithWhatIsWrong() {
        MalformedRecordException empty = assertThrows(MalformedRecordException.class,
                () -> decodeAll(ByteBuffer.allocate(0)));
        assertTrue(empty.getMessage().contains("empty"), empty.getMessage());
        MalformedRecordException foreign = assertThrows(MalformedRecordException.class,
                () -> decodeAll(ByteBuffer.wrap("hello".getBytes(StandardCharsets.UTF_8))));
        assertTrue(foreign.getMessage().contains("format byte 104"), foreign.getMessage());
    }

    @Test
    void everyTruncationOfARecordIsRefused() {
        ByteBuffer r = RecordCodec.encode(fields("field0", "x".repeat(300), "field1", "y".repeat(5)));
        byte[] all = new byte[r.remaining()];
        r.get(all);
        for (int n = 0; n < all.length; n++) {
            ByteBuffer cut = ByteBuffer.wrap(all, 0, n);
            assertThrows(MalformedRecordException.class, () -> decodeAll(cut), "prefix of " + n + " bytes");
        }
    }

    @Test
    void trailingBytesARepeatedNameAndImpossibleLengthsAreRefused() {
        ByteBuffer r = RecordCodec.encode(fields("a", "1"));
        ByteBuffer longer = ByteBuffer.allocate(r.remaining() + 1).put(r.duplicate()).put((byte) 0).flip();
        assertTrue(assertThrows(MalformedRecordException.class, () -> decodeAll(longer)).getMessage()
                .contains("after the last"));

        // format, 2 fields, "a"="1", "a"="2"
        byte[] twice = {1, 2, 1, 'a', 1, '1', 1, 'a', 1, '2'};
        assertTrue(assertThrows(MalformedRecordException.class, () -> decodeAll(ByteBuffer.wrap(twice))).getMessage()
                .contains("appears twice"));

        byte[] hugeCount = {1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x07, 0, 0};
        assertThrows(MalformedRecordException.class, () -> decodeAll(ByteBuffer.wrap(hugeCount)));

        // one field whose name length is a varint above 2^31
        byte[] overflow = {1, 1, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 0x7F, 0, 0};
        assertTrue(assertThrows(MalformedRecordException.class, () -> decodeAll(ByteBuffer.wrap(overflow)))
                .getMessage().contains("below 2^31"));
    }

    @Test
    void randomBytesNeverDecodeToAnythingButARecordOrAClearRefusal() {
        Random random = new Random(13);
        for (int i = 0; i < 20_000; i++) {
            byte[] junk = new byte[random.nextInt(24)];
            random.nextBytes(junk);
            if (junk.length > 0 && random.nextBoolean()) {
                junk[0] = RecordCodec.FORMAT; // past the format check half of the time
            }
            try {
                decodeAll(ByteBuffer.wrap(junk));
            } catch (MalformedRecordException expected) {
                // the only failure allowed
            }
        }
    }

    @Test
    void varintsUseOneByteBelow128AndFiveForTheLargestInt() {
        for (int v : new int[] {0, 1, 127, 128, 16383, 16384, Integer.MAX_VALUE}) {
            ByteBuffer b = ByteBuffer.allocate(5);
            RecordCodec.putVarint(b, v);
            assertEquals(RecordCodec.varintSize(v), b.position(), "size of " + v);
        }
        assertEquals(1, RecordCodec.varintSize(127));
        assertEquals(5, RecordCodec.varintSize(Integer.MAX_VALUE));
    }
}
