package io.creel.storage.tcp.tier;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.storage.MappedRegion;
import io.creel.common.storage.StorageService;
import io.creel.common.storage.StorageTier;
import io.creel.common.storage.StorageTierContext;
import io.creel.common.storage.TagFile;
import io.creel.storage.tcp.medium.DramMedium;
import io.creel.storage.tcp.server.BlockStorageService;
import io.creel.storage.tcp.tags.MappedTagTable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * The "dram" tier: one region file under {@code creel.storage.dram.path} (a tmpfs), holding the tag
 * file header and tag table followed, at a 2 MiB-aligned {@code dataOffset}, by the blocks. The server
 * and same-host clients map the same file. The file is deleted when the server closes.
 */
public final class DramTier implements StorageTier {
    /** Block data starts at a multiple of this, so huge pages could back it. */
    public static final long DATA_ALIGNMENT = 2L << 20;

    @Override
    public String name() {
        return "dram";
    }

    @Override
    public StorageService start(StorageTierContext ctx) {
        CreelConf conf = ctx.conf();
        int blockSize = (int) (long) conf.get(ConfKeys.BLOCK_SIZE);
        long blockCount = TierFiles.blockCount(ConfKeys.STORAGE_DRAM_SIZE, conf.get(ConfKeys.STORAGE_DRAM_SIZE), blockSize);
        Path dir = TierFiles.directory(ConfKeys.STORAGE_DRAM_PATH, conf.get(ConfKeys.STORAGE_DRAM_PATH));
        return BlockStorageService.start(ctx, name(), port -> {
            Path file = dir.resolve(TierFiles.uniqueName("dram", port) + ".region");
            long token = TierFiles.token();
            long dataOffset = TagFile.roundUp(TagFile.size(blockCount), DATA_ALIGNMENT);
            MappedRegion region = null;
            try {
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.setLength(dataOffset + blockCount * blockSize);
                }
                try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    TagFile.initialize(ch, blockSize, blockCount, token, dataOffset);
                    region = new MappedRegion(ch, FileChannel.MapMode.READ_WRITE, dataOffset, blockSize, blockCount);
                }
                MappedTagTable tags = MappedTagTable.open(file, blockCount, true);
                StorageServerInfo info = new StorageServerInfo(0, name(), ctx.storageClass(), ctx.advertiseHost(), port,
                        ctx.hostId(), blockCount, blockSize, file.toString(), dataOffset, file.toString(),
                        TagFile.TAG_OFFSET, token);
                String summary = "dram: " + blockCount + " blocks of " + ConfValues.formatSize(blockSize) + " ("
                        + ConfValues.formatSize(blockCount * blockSize) + ") in " + file + ", memory-mapped";
                return new BlockStorageService.Medium(new DramMedium(region), tags, info, summary, List.of(file));
            } catch (IOException | RuntimeException e) {
                if (region != null) {
                    region.close();
                }
                Files.deleteIfExists(file);
                throw e;
            }
        });
    }
}
