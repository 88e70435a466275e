package io.creel.storage.nvmf.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** How a volume is laid out on a namespace: header, one tag sector per block, aligned blocks. */
class VolumeLayoutTest {
    private static final int MIB = 1 << 20;

    @ParameterizedTest(name = "{0}-byte sectors, {1} sectors, {2}-byte blocks")
    @CsvSource({
            "512, 1048576, 1048576",       // 512 MiB namespace, 1 MiB blocks (the lab's RAM disk)
            "4096, 131072, 1048576",       // the same on 4 KiB sectors
            "512, 262144, 65536",          // 128 MiB, 64 KiB blocks
            "4096, 4096, 4096",            // 16 MiB of 4 KiB blocks: alignment costs blocks
            "512, 2099200, 1048576"})      // a namespace just over 1 GiB
    void blocksTagsAndHeaderFitTheNamespaceWithoutOverlapping(int sector, long sectors, int block) {
        VolumeLayout l = VolumeLayout.plan(sector, sectors, block);
        assertTrue(l.tagSector() * sector >= VolumeLayout.HEADER_BYTES, "the header keeps its 4 KiB");
        assertTrue(l.dataSector() >= l.tagSector() + l.blockCount(), "tags end before the data starts");
        assertEquals(0, l.dataSector() * sector % VolumeLayout.DATA_ALIGNMENT, "block 0 starts on a MiB boundary");
        assertTrue(l.usedSectors() <= sectors, "the volume fits: " + l.usedSectors() + " of " + sectors);
        // One more block would not fit: the plan wastes less than a block and its tag plus the alignment.
        long spare = sectors * sector - l.usedSectors() * sector;
        assertTrue(spare < block + sector + VolumeLayout.DATA_ALIGNMENT, "spare " + spare);
        assertEquals(l.dataSector() * sector + 3L * block + 17, l.byteOf(3, 17));
        assertEquals(l.tagSector() + l.blockCount() - 1, l.tagSectorOf(l.blockCount() - 1));
    }

    @Test
    void theTagSectorsCostOneSectorPerBlock() {
        VolumeLayout l = VolumeLayout.plan(512, 1L << 21, MIB); // 1 GiB
        // Header (8 sectors) and 1023 tag sectors fit in the first MiB; the blocks fill the other 1023.
        assertEquals(1023, l.blockCount());
        assertEquals(8, l.tagSector());
        assertEquals(2048, l.dataSector(), "data from the first MiB boundary after 8 + 1023 sectors");
        assertEquals(1L << 30, l.usedSectors() * 512, "nothing is left over");
    }

    @Test
    void blocksMustBeWholeSectors() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VolumeLayout.plan(4096, 1 << 20, 2048));
        assertTrue(e.getMessage().contains("multiple of the namespace's 4096-byte sector"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> VolumeLayout.plan(4096, 1 << 20, 4096 + 512));
    }

    @Test
    void aNamespaceTooSmallForOneBlockIsRefusedSayingSo() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> VolumeLayout.plan(512, 2048 + 100, MIB));
        assertTrue(e.getMessage().contains("hold no block"), e.getMessage());
    }

    @Test
    void oddSectorSizesAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> VolumeLayout.plan(520, 1 << 20, MIB));
        assertThrows(IllegalArgumentException.class, () -> VolumeLayout.plan(256, 1 << 20, MIB));
    }

    @Test
    void addressesOutsideTheVolumeAreRefused() {
        VolumeLayout l = VolumeLayout.plan(512, 1 << 20, MIB);
        assertThrows(IllegalArgumentException.class, () -> l.byteOf(l.blockCount(), 0));
        assertThrows(IllegalArgumentException.class, () -> l.byteOf(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> l.byteOf(0, MIB + 1));
        assertThrows(IllegalArgumentException.class, () -> l.tagSectorOf(l.blockCount()));
    }
}
