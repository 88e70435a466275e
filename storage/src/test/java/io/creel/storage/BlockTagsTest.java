package io.creel.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.format.BlockTags;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Writers claim a block for their allocation's tag, readers check it; a refusal says which way it is off. */
class BlockTagsTest {
    private final BlockTags tags = new BlockTags(ByteBuffer.allocateDirect(4 * 8), 4);

    @Test
    void aWriterClaimsTheBlockAndAnOlderAllocationIsRefused() {
        assertTrue(tags.claim(1, 10));
        assertTrue(tags.matches(1, 10));
        assertTrue(tags.claim(1, 10), "claiming again for the same allocation");
        assertTrue(tags.claim(1, 12), "a newer allocation takes the block over");
        assertFalse(tags.claim(1, 10), "the older allocation may not write any more");
        CreelException e = assertThrows(CreelException.class, () -> tags.claimOrThrow(1, 11, "write"));
        assertEquals(ErrorCode.STALE_BLOCK, e.code());
        assertTrue(e.getMessage().contains("was freed and reused (tag 11, now 12)"), e.getMessage());
    }

    @Test
    void aReadOfABlockItsAllocationHasNotWrittenYetSaysSoRatherThanClaimingAReuse() {
        CreelException never = assertThrows(CreelException.class, () -> tags.checkOrThrow(2, 7, "read"));
        assertEquals(ErrorCode.STALE_BLOCK, never.code());
        assertTrue(never.getMessage().contains("block 2 has not been written under this allocation yet"),
                never.getMessage());
        assertTrue(never.getMessage().contains("never written"), never.getMessage());
        assertFalse(never.getMessage().contains("reused"), never.getMessage());

        tags.claim(2, 5); // an earlier owner of the block
        CreelException older = assertThrows(CreelException.class, () -> tags.checkOrThrow(2, 7, "read"));
        assertTrue(older.getMessage().contains("still holds the older tag 5"), older.getMessage());
        assertFalse(older.getMessage().contains("reused"), older.getMessage());

        tags.claim(2, 9);
        CreelException reused = assertThrows(CreelException.class, () -> tags.checkOrThrow(2, 7, "read"));
        assertTrue(reused.getMessage().contains("was freed and reused (tag 7, now 9)"), reused.getMessage());
    }

    @Test
    void aBlockOutsideTheTableIsAnInvalidArgument() {
        assertEquals(ErrorCode.INVALID_ARGUMENT, assertThrows(CreelException.class, () -> tags.get(4)).code());
        assertEquals(ErrorCode.INVALID_ARGUMENT, assertThrows(CreelException.class, () -> tags.claim(-1, 1)).code());
    }
}
