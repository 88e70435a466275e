package io.creel.storage.nvmf.volume;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.nvmf.format.TagSector;

/**
 * The error for a block whose tag sector does not hold the tag a reader or writer expected, worded
 * like the server's own tag check: a newer tag means the block was freed and reused; an older one (or
 * none) means the allocation has not written the block yet; another volume's tag means a second
 * server writes this namespace.
 */
public final class TagVerdict {
    private TagVerdict() {
    }

    /** Whether {@code found} is newer than {@code tag}: the block belongs to a later allocation. */
    public static boolean newer(TagSector.Reading found, long tag) {
        return found.written() && Long.compareUnsigned(found.tag(), tag) > 0;
    }

    /** STALE_BLOCK for {@code block}, expected under {@code tag}, found holding {@code found}. */
    public static CreelException stale(String where, long block, long tag, TagSector.Reading found) {
        String expected = Long.toUnsignedString(tag);
        String why;
        if (newer(found, tag)) {
            why = " was freed and reused (tag " + expected + ", now " + Long.toUnsignedString(found.tag()) + ")";
        } else if (found.foreign()) {
            why = " belongs to another Creel volume on the same namespace (its tag sector holds " + found.describe()
                    + "; tag " + expected + " expected): two storage servers use this namespace";
        } else {
            why = " has not been written under this allocation yet (tag " + expected + "; the tag sector holds "
                    + found.describe() + ")";
        }
        return new CreelException(ErrorCode.STALE_BLOCK, where + ": block " + block + why);
    }
}
