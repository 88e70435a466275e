package io.creel.storage.nvmf.tier;

import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.StorageKeys;
import io.creel.storage.format.BlockTags;
import io.creel.storage.nvmf.format.NvmfAttributes;
import io.creel.storage.nvmf.format.VolumeLayout;
import io.creel.storage.spi.StorageTier;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;
import java.nio.ByteBuffer;
import java.security.SecureRandom;

/**
 * The "nvmf" tier: the blocks of one namespace of an NVMe-oF target (kernel nvmet, SPDK, a flash
 * array), reached over NVMe/TCP or RDMA ({@code creel.storage.nvmf.*}). The server connects, lays a
 * volume out on the namespace (header, one tag sector per block, the blocks), and offers the blocks;
 * clients that can reach the target read and write it directly, the others through the server.
 *
 * <p>The volume lives as long as the server: each start writes a new header with a new token, and
 * blocks of an earlier start are not served again ({@code creel.storage.persistent} is refused).
 */
public final class NvmfTier implements StorageTier {
    private static final SecureRandom RANDOM = new SecureRandom();

    /** For {@link java.util.ServiceLoader}. */
    public NvmfTier() {
    }

    @Override
    public String name() {
        return "nvmf";
    }

    @Override
    public Volume open(TierContext ctx) {
        CreelConf conf = ctx.conf();
        if (conf.get(StorageKeys.PERSISTENT)) {
            throw new CreelException(ErrorCode.CONFIGURATION, "the nvmf tier keeps no blocks across restarts: unset "
                    + StorageKeys.PERSISTENT.name() + " for it");
        }
        NvmfSettings settings = NvmfSettings.from(conf);
        long blockSize = StorageKeys.blockSize(conf);
        long token = token();
        TargetSession session = TargetSession.open(settings, Math.toIntExact(blockSize), token);
        try {
            VolumeLayout layout = session.layout();
            if (layout.blockCount() * 8 > Integer.MAX_VALUE) {
                throw new CreelException(ErrorCode.CONFIGURATION, session.describe() + " would hold "
                        + layout.blockCount() + " blocks, more than one server can track; raise creel.block.size or "
                        + "set creel.storage.nvmf.size");
            }
            ctx.listen(conf.get(StorageKeys.PORT));
            BlockTags tags = new BlockTags(ByteBuffer.allocateDirect((int) (layout.blockCount() * 8)),
                    layout.blockCount());
            TagSectors tagSectors = new TagSectors(tags, session::io);
            NvmfMedium medium = new NvmfMedium(session, tags, tagSectors, settings.mediumWait());
            NvmfAttributes attributes = new NvmfAttributes(settings.advertiseAddress(), settings.tcpPort(),
                    settings.rdmaPort(), settings.target().nqn(), settings.nsid(), settings.digest(), layout);
            long usable = layout.usedSectors() * layout.sectorSize();
            String summary = "nvmf: " + layout.blockCount() + " blocks of " + ConfValues.formatSize(layout.blockSize())
                    + " (" + ConfValues.formatSize(layout.blockCount() * layout.blockSize()) + ") on "
                    + session.describe() + ", " + layout.sectorSize() + "-byte sectors; header, tag sectors and "
                    + "alignment take " + ConfValues.formatSize(usable - layout.blockCount() * layout.blockSize())
                    + "; clients reach it over " + clientPaths(settings);
            return new NvmfVolume(session, medium, tags, tagSectors, attributes.toMap(), summary);
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    private static String clientPaths(NvmfSettings s) {
        StringBuilder b = new StringBuilder();
        if (s.rdmaPort() > 0) {
            b.append("NVMe/RDMA ").append(s.advertiseAddress()).append(':').append(s.rdmaPort()).append(", ");
        }
        if (s.tcpPort() > 0) {
            b.append("NVMe/TCP ").append(s.advertiseAddress()).append(':').append(s.tcpPort()).append(", ");
        }
        return b.append("or this server").toString();
    }

    private static long token() {
        long t;
        do {
            t = RANDOM.nextLong();
        } while (t == 0);
        return t;
    }
}
