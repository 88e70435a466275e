package io.creel.storage.nvmf.tier;

import io.creel.storage.format.BlockTags;
import io.creel.storage.nvmf.format.TagSector;
import io.creel.storage.nvmf.format.VolumeLayout;
import io.creel.storage.nvmf.volume.TagVerdict;
import io.creel.storage.nvmf.volume.VolumeIo;
import io.creel.storage.nvmf.volume.Waits;
import io.creel.storage.spi.BlockMedium;
import java.nio.ByteBuffer;
import java.time.Duration;

/**
 * The blocks of an nvmf volume as the storage server's exporters see them (the TCP exporter serves
 * them to clients that cannot reach the target): every call goes to the target and waits, bounded,
 * for its NVMe commands. The waits run on the caller's thread; the commands complete on the
 * initiator's own threads, never the server's event loops.
 *
 * <p>The tag sectors are kept here too, so that a client reading the target directly sees what was
 * written through the server: a write first brings the block's tag sector up to the claim the server
 * holds ({@link TagSectors}); a read checks, after the data, that the sector holds the server's tag
 * for the block, which also catches a second server writing the same namespace.
 */
final class NvmfMedium implements BlockMedium {
    private final TargetSession session;
    private final BlockTags tags;
    private final TagSectors tagSectors;
    private final VolumeLayout layout;
    private final Duration wait;

    NvmfMedium(TargetSession session, BlockTags tags, TagSectors tagSectors, Duration wait) {
        this.session = session;
        this.tags = tags;
        this.tagSectors = tagSectors;
        this.layout = session.layout();
        this.wait = wait;
    }

    @Override
    public int blockSize() {
        return layout.blockSize();
    }

    @Override
    public long blockCount() {
        return layout.blockCount();
    }

    @Override
    public void read(long block, int offset, ByteBuffer dst) {
        long expected = tags.get(block);
        VolumeIo io = session.io();
        String what = "reading block " + block + " of " + session.describe();
        Waits.await(io.read(block, offset, dst), wait, what);
        TagSector.Reading found = Waits.await(io.readTag(block), wait, what);
        if (found.tag() != expected) {
            throw TagVerdict.stale(session.describe(), block, expected, found);
        }
    }

    @Override
    public void write(long block, int offset, ByteBuffer src) {
        String what = "writing block " + block + " of " + session.describe();
        Waits.await(tagSectors.persist(block), wait, what + " (its tag sector)");
        Waits.await(session.io().write(block, offset, src), wait, what);
    }

    @Override
    public String describe() {
        return "NVMe-oF " + session.describe() + ", " + layout.sectorSize() + "-byte sectors";
    }

    /** Nothing to do: an nvmf volume is never kept across restarts (the tier refuses creel.storage.persistent). */
    @Override
    public void force() {
    }

    /** The session is the volume's to close. */
    @Override
    public void close() {
    }
}
