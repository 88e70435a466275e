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
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The "disk" tier: a data file under {@code creel.storage.disk.path} holding the blocks from byte 0,
 * accessed with O_DIRECT where allowed (see {@code creel.storage.disk.direct}), plus a tag file
 * {@code <data file>.tags} beside it.
 *
 * <p>By default the data file is {@code disk-<port>-<random>.data} and both files are deleted when
 * the server closes. With {@code creel.storage.persistent} they are {@code disk.data} and
 * {@code disk.data.tags}, kept at close and served again by the next start in that directory, with
 * the same token and port ({@code disk.lock} holds the directory and the port).
 */
public final class DiskTier implements StorageTier {
    private static final Logger LOG = LoggerFactory.getLogger(DiskTier.class);

    /** The data file of a persistent disk server; its tag file is this name plus ".tags". */
    public static final String PERSISTENT_FILE = "disk.data";

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
        if (conf.get(ConfKeys.STORAGE_PERSISTENT)) {
            return startPersistent(ctx, dir, blockSize, blockCount, mode);
        }
        return BlockStorageService.start(ctx, name(), port -> {
            Path data = dir.resolve(TierFiles.uniqueName("disk", port) + ".data");
            Path tagFile = dir.resolve(data.getFileName() + ".tags");
            try {
                create(data, tagFile, blockSize, blockCount);
                return open(ctx, data, tagFile, blockSize, blockCount, mode, port, "", List.of(data, tagFile), null);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(data);
                Files.deleteIfExists(tagFile);
                throw e;
            }
        });
    }

    private StorageService startPersistent(StorageTierContext ctx, Path dir, int blockSize, long blockCount,
                                           DiskMedium.DirectMode mode) {
        TierLock lock = TierLock.acquire(dir, name());
        try {
            int port = lock.portToBind(ctx.conf().get(ConfKeys.STORAGE_PORT));
            return TierFiles.onRememberedPort(lock, port, ctx, () -> BlockStorageService.start(ctx, name(), port,
                    bound -> {
                Path data = dir.resolve(PERSISTENT_FILE);
                Path tagFile = dir.resolve(PERSISTENT_FILE + ".tags");
                String how;
                // The tag file is created last, so its existence means both files are complete.
                if (Files.exists(tagFile)) {
                    TierFiles.reopen(tagFile, ConfKeys.STORAGE_DISK_SIZE, blockSize, blockCount);
                    TierFiles.checkSize(data, blockCount * blockSize);
                    how = "reopened (persistent)";
                } else {
                    Path freshTags = dir.resolve(PERSISTENT_FILE + ".tags.new");
                    try {
                        create(data, freshTags, blockSize, blockCount);
                        Files.move(freshTags, tagFile, StandardCopyOption.ATOMIC_MOVE);
                    } finally {
                        Files.deleteIfExists(freshTags);
                    }
                    how = "created (persistent)";
                }
                lock.rememberPort(bound);
                return open(ctx, data, tagFile, blockSize, blockCount, mode, bound, how, List.of(), lock);
            }));
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    private static void create(Path data, Path tagFile, int blockSize, long blockCount) throws IOException {
        // setLength reserves the size without writing it (a sparse file where the filesystem
        // allows); writing gigabytes of zeros at start would only delay the server.
        try (RandomAccessFile raf = new RandomAccessFile(data.toFile(), "rw")) {
            raf.setLength(0);
            raf.setLength(blockCount * blockSize);
        }
        try (RandomAccessFile raf = new RandomAccessFile(tagFile.toFile(), "rw")) {
            raf.setLength(TagFile.size(blockCount));
        }
        try (FileChannel ch = FileChannel.open(tagFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            TagFile.initialize(ch, blockSize, blockCount, TierFiles.token(), 0);
        }
    }

    private BlockStorageService.Medium open(StorageTierContext ctx, Path data, Path tagFile, int blockSize,
                                            long blockCount, DiskMedium.DirectMode mode, int port, String how,
                                            List<Path> files, TierLock lock) throws IOException {
        long token = TagFile.readHeader(tagFile).token();
        DiskMedium medium = DiskMedium.open(data, blockSize, blockCount, mode);
        try {
            MappedTagTable tags = MappedTagTable.open(tagFile, blockCount, true);
            StorageServerInfo info = new StorageServerInfo(0, name(), ctx.storageClass(), ctx.advertiseHost(), port,
                    ctx.hostId(), blockCount, blockSize, data.toString(), 0, tagFile.toString(),
                    TagFile.TAG_OFFSET, token);
            String summary = "disk: " + blockCount + " blocks of " + ConfValues.formatSize(blockSize) + " ("
                    + ConfValues.formatSize(blockCount * blockSize) + ") in " + data + ", " + medium.describe()
                    + (how.isEmpty() ? "" : ", " + how);
            LOG.info("disk tier {} uses {}{}", data, medium.describe(), how.isEmpty() ? "" : "; " + how);
            return new BlockStorageService.Medium(medium, tags, info, summary, files, lock != null, lock);
        } catch (IOException | RuntimeException e) {
            medium.close();
            throw e;
        }
    }
}
