package io.creel.storage.local.tier;

import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.storage.StorageKeys;
import io.creel.storage.format.MappedTagTable;
import io.creel.storage.format.TagFile;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.local.medium.DiskMedium;
import io.creel.storage.local.transport.SameHostFiles;
import io.creel.storage.spi.StorageTier;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;
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
    public Volume open(TierContext ctx) {
        CreelConf conf = ctx.conf();
        int blockSize = StorageKeys.blockSize(conf);
        long blockCount = TierFiles.blockCount(LocalTierKeys.DISK_SIZE, conf.get(LocalTierKeys.DISK_SIZE), blockSize);
        Path dir = TierFiles.directory(LocalTierKeys.DISK_PATH, conf.get(LocalTierKeys.DISK_PATH));
        DiskMedium.DirectMode mode = DiskMedium.DirectMode.parse(conf.get(LocalTierKeys.DISK_DIRECT));
        PrivateFiles privacy = PrivateFiles.of(conf);
        privacy.directory(dir);
        if (conf.get(StorageKeys.PERSISTENT)) {
            return startPersistent(ctx, dir, blockSize, blockCount, mode, privacy);
        }
        int port = ctx.listen(conf.get(StorageKeys.PORT));
        Path data = dir.resolve(TierFiles.uniqueName("disk", port) + ".data");
        Path tagFile = dir.resolve(data.getFileName() + ".tags");
        try {
            create(data, tagFile, blockSize, blockCount, privacy);
            return open(data, tagFile, blockSize, blockCount, mode, DramTier.beatMillis(conf), "",
                    List.of(data, tagFile), null);
        } catch (IOException | RuntimeException e) {
            TierFiles.deleteQuietly(data);
            TierFiles.deleteQuietly(tagFile);
            throw TierFiles.cannotPrepare(name(), e);
        }
    }

    private Volume startPersistent(TierContext ctx, Path dir, int blockSize, long blockCount,
                                   DiskMedium.DirectMode mode, PrivateFiles privacy) {
        TierLock lock = TierLock.acquire(dir, name());
        try {
            int bound = TierFiles.listenOnRememberedPort(lock, ctx);
            try {
                Path data = dir.resolve(PERSISTENT_FILE);
                Path tagFile = dir.resolve(PERSISTENT_FILE + ".tags");
                String how;
                // The tag file is created last, so its existence means both files are complete.
                if (Files.exists(tagFile)) {
                    TierFiles.reopen(tagFile, LocalTierKeys.DISK_SIZE, blockSize, blockCount);
                    TierFiles.checkSize(data, blockCount * blockSize);
                    // Made by an older server, perhaps with the umask's permissions.
                    privacy.restrict(data);
                    privacy.restrict(tagFile);
                    how = "reopened (persistent)";
                } else {
                    Path freshTags = dir.resolve(PERSISTENT_FILE + ".tags.new");
                    try {
                        create(data, freshTags, blockSize, blockCount, privacy);
                        Files.move(freshTags, tagFile, StandardCopyOption.ATOMIC_MOVE);
                    } finally {
                        Files.deleteIfExists(freshTags);
                    }
                    how = "created (persistent)";
                }
                lock.rememberPort(bound);
                return open(data, tagFile, blockSize, blockCount, mode, DramTier.beatMillis(ctx.conf()), how,
                        List.of(), lock);
            } catch (IOException e) {
                throw TierFiles.cannotPrepare(name(), e);
            }
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    private static void create(Path data, Path tagFile, int blockSize, long blockCount, PrivateFiles privacy)
            throws IOException {
        privacy.create(data);
        privacy.create(tagFile);
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

    private LocalVolume open(Path data, Path tagFile, int blockSize, long blockCount, DiskMedium.DirectMode mode,
                             long beatMillis, String how, List<Path> temporary, TierLock lock) throws IOException {
        long token = TagFile.readHeader(tagFile).token();
        DiskMedium medium = DiskMedium.open(data, blockSize, blockCount, mode);
        try {
            MappedTagTable tags = MappedTagTable.open(tagFile, blockCount, true);
            LivenessBeat liveness;
            try {
                liveness = LivenessBeat.start(tagFile, beatMillis);
            } catch (IOException | RuntimeException e) {
                tags.close();
                throw e;
            }
            String summary = "disk: " + blockCount + " blocks of " + ConfValues.formatSize(blockSize) + " ("
                    + ConfValues.formatSize(blockCount * blockSize) + ") in " + data + ", " + medium.describe()
                    + (how.isEmpty() ? "" : ", " + how);
            LOG.info("disk tier {} uses {}{}", data, medium.describe(), how.isEmpty() ? "" : "; " + how);
            return new LocalVolume(medium, tags, liveness, token,
                    new SameHostFiles(data.toString(), 0, tagFile.toString(), TagFile.TAG_OFFSET), summary, temporary,
                    lock, null);
        } catch (IOException | RuntimeException e) {
            medium.close();
            throw e;
        }
    }
}
