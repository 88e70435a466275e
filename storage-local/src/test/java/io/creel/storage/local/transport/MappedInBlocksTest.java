package io.creel.storage.local.transport;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The per-block record of what a same-host client has mapped in: unseen, seen once, mapped in. */
class MappedInBlocksTest {
    @Test
    void aBlockIsUsedAgainFromItsSecondUseOn() {
        MappedInBlocks blocks = new MappedInBlocks(4);
        assertFalse(blocks.usedAgain(2), "the first use of a block");
        assertTrue(blocks.usedAgain(2), "its second use");
        assertTrue(blocks.usedAgain(2), "and every later one");
        assertFalse(blocks.usedAgain(3), "other blocks keep their own count");
        assertFalse(blocks.isMappedIn(2), "using a block through the file does not map it in");
    }

    @Test
    void aBlockMappedInIsRecordedAsSuchAndAsUsed() {
        MappedInBlocks blocks = new MappedInBlocks(4);
        blocks.mappedIn(1);
        assertTrue(blocks.isMappedIn(1));
        assertFalse(blocks.isMappedIn(0), "only that block");
        assertTrue(blocks.usedAgain(1), "a mapped-in block counts as used");
    }

    @Test
    void blocksOutsideTheRegionAreRefused() {
        MappedInBlocks blocks = new MappedInBlocks(4);
        assertThrows(IndexOutOfBoundsException.class, () -> blocks.isMappedIn(4));
        assertThrows(IndexOutOfBoundsException.class, () -> blocks.usedAgain(-1));
    }
}
