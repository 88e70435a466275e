package io.creel.storage.tcp.tier;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.storage.StorageService;
import io.creel.common.storage.StorageTier;
import io.creel.common.storage.StorageTierContext;
import io.creel.common.storage.TagFile;
import io.creel.storage.tcp.medium.DiskMedium;
import io.creel.storage.tcp.server.BlockStorageService;
import io.creel.storage.tcp.tags.MappedTagTable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The "disk" tier: a data file {@code disk-<port>-<random>.data} under {@code creel.storage.disk.path}
 * holding the blocks from byte 0, accessed with O_DIRECT where allowed (see
 * {@code creel.storage.disk.direct}), plus a tag file {@code <data file>.tags} beside it. Both files
 * are deleted when the server closes.
 */
public final class DiskTier implements StorageTier {
    private static final Logger LOG = LoggerFactory.getLogger(DiskTier.class);

    @Override
    public String name() {
        return "disk";
    }

    @Override
    public StorageService start(StorageTierContext ctx) {
        CreelConf conf = ctx.conf();
        int blockSize = (int) (long) conf.get(ConfKeys.BLOCK_SIZE);
        long blockCount = TierFiles.blockCount(ConfKeys.STORAGE_DISK_SIZE, conf.get(ConfKeys.STORAGE_DISK_SIZE), blockSize);
        Path dir = TierFiles.directory(ConfKeys.STORAGE_DISK_PATH, conf.get(ConfKeys.STORAGE_DISK_PATH));
        DiskMedium.DirectMode mode = DiskMedium.DirectMode.parse(conf.get(ConfKeys.STORAGE_DISK_DIRECT));
        return BlockStorageService.start(ctx, name(), port -> {
            Path data = dir.resolve(TierFiles.uniqueName("disk", port) + ".data");
            Path tagFile = dir.resolve(data.getFileName() + ".tags");
            long token = TierFiles.token();
            DiskMedium medium = null;
            try {
                // setLength reserves the size without writing it (a sparse file where the filesystem
                // allows); writing gigabytes of zeros at start would only delay the server.
                try (RandomAccessFile raf = new RandomAccessFile(data.toFile(), "rw")) {
                    raf.setLength(blockCount * blockSize);
                }
                try (RandomAccessFile raf = new RandomAccessFile(tagFile.toFile(), "rw")) {
                    raf.setLength(TagFile.size(blockCount));
                }
                try (FileChannel ch = FileChannel.open(tagFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    TagFile.initialize(ch, blockSize, blockCount, token, 0);
                }
                medium = DiskMedium.open(data, blockSize, blockCount, mode);
                MappedTagTable tags = MappedTagTable.open(tagFile, blockCount, true);
                StorageServerInfo info = new StorageServerInfo(0, name(), ctx.storageClass(), ctx.advertiseHost(), port,
                        ctx.hostId(), blockCount, blockSize, data.toString(), 0, tagFile.toString(),
                        TagFile.TAG_OFFSET, token);
                String summary = "disk: " + blockCount + " blocks of " + ConfValues.formatSize(blockSize) + " ("
                        + ConfValues.formatSize(blockCount * blockSize) + ") in " + data + ", " + medium.describe();
                LOG.info("disk tier {} uses {}", data, medium.describe());
                return new BlockStorageService.Medium(medium, tags, info, summary, List.of(data, tagFile));
            } catch (IOException | RuntimeException e) {
                if (medium != null) {
                    medium.close();
                }
                Files.deleteIfExists(data);
                Files.deleteIfExists(tagFile);
                throw e;
            }
        });
    }
}
