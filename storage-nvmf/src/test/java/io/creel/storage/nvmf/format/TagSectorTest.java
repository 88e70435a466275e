package io.creel.storage.nvmf.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The on-target formats: a tag sector and the volume header, and what garbage reads as. */
class TagSectorTest {
    private static final long TOKEN = 0x1234_5678_9abc_def0L;

    @Test
    void aTagReadsBackForItsVolumeAndBlockOnly() {
        ByteBuffer s = TagSector.encode(ByteBuffer.allocate(512), TOKEN, 7, 0xffff_0000_0000_0001L);
        assertEquals(0xffff_0000_0000_0001L, TagSector.decode(s, TOKEN, 7).tag());
        assertEquals(0, TagSector.decode(s, TOKEN, 8).tag(), "another block's tag is no tag of this block");
        TagSector.Reading other = TagSector.decode(s, 99, 7);
        assertFalse(other.written());
        assertTrue(other.foreign(), "another volume's tag is recognised as such");
        assertEquals(TOKEN, other.foreignToken());
    }

    @Test
    void zerosAndDamagedSectorsReadAsNoTag() {
        assertEquals(new TagSector.Reading(0, 0), TagSector.decode(ByteBuffer.allocate(4096), TOKEN, 0));
        ByteBuffer s = TagSector.encode(ByteBuffer.allocate(512), TOKEN, 3, 42);
        for (int i = 0; i < TagSector.USED_BYTES; i++) {
            ByteBuffer damaged = ByteBuffer.allocate(512).put(s.duplicate().clear()).clear();
            damaged.put(i, (byte) (damaged.get(i) ^ 0x10));
            assertEquals(new TagSector.Reading(0, 0), TagSector.decode(damaged, TOKEN, 3), "byte " + i + " flipped");
        }
        assertEquals(new TagSector.Reading(0, 0), TagSector.decode(ByteBuffer.allocate(10), TOKEN, 3), "too short");
    }

    @Test
    void encodingFillsTheWholeSectorLeavingNothingOfWhatWasThere() {
        ByteBuffer s = ByteBuffer.allocate(4096);
        for (int i = 0; i < s.capacity(); i++) {
            s.put(i, (byte) 0x5a);
        }
        TagSector.encode(s, TOKEN, 1, 2);
        for (int i = TagSector.USED_BYTES; i < s.capacity(); i++) {
            assertEquals(0, s.get(i), "byte " + i);
        }
        assertEquals(0, s.position());
    }

    @Test
    void theHeaderRoundTripsAndRejectsDamage() {
        VolumeLayout layout = VolumeLayout.plan(512, 1 << 20, 1 << 20);
        VolumeHeader h = new VolumeHeader(layout, TOKEN, 1_700_000_000_000L);
        ByteBuffer s = h.encode(ByteBuffer.allocate(512));
        assertEquals(Optional.of(h), VolumeHeader.decode(s));
        s.put(20, (byte) 1);
        assertEquals(Optional.empty(), VolumeHeader.decode(s), "a damaged header is none");
        assertEquals(Optional.empty(), VolumeHeader.decode(ByteBuffer.allocate(512)), "zeros are none");
        ByteBuffer tag = TagSector.encode(ByteBuffer.allocate(512), TOKEN, 0, 1);
        assertEquals(Optional.empty(), VolumeHeader.decode(tag), "a tag sector is no header");
    }
}
