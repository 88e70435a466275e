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
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The "dram" tier: one region file under {@code creel.storage.dram.path} (a tmpfs), holding the tag
 * file header and tag table followed, at a 2 MiB-aligned {@code dataOffset}, by the blocks. The server
 * and same-host clients map the same file.
 *
 * <p>By default the file is {@code dram-<port>-<random>.region} and is deleted when the server
 * closes. With {@code creel.storage.persistent} it is {@code dram.region}, kept at close (forced
 * first) and served again by the next start in that directory, with the same token and port: the
 * server keeps its identity and its data ({@code dram.lock} holds the directory and the port).
 */
public final class DramTier implements StorageTier {
    private static final Logger LOG = LoggerFactory.getLogger(DramTier.class);

    /** Block data starts at a multiple of this, so huge pages could back it. */
    public static final long DATA_ALIGNMENT = 2L << 20;

    /** The region file of a persistent DRAM server. */
    public static final String PERSISTENT_FILE = "dram.region";

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
        if (conf.get(ConfKeys.STORAGE_PERSISTENT)) {
            return startPersistent(ctx, dir, blockSize, blockCount);
        }
        return BlockStorageService.start(ctx, name(), port -> {
            Path file = dir.resolve(TierFiles.uniqueName("dram", port) + ".region");
            try {
                create(file, blockSize, blockCount, TierFiles.token());
                return open(ctx, file, blockSize, blockCount, port, "", List.of(file), null);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(file);
                throw e;
            }
        });
    }

    private StorageService startPersistent(StorageTierContext ctx, Path dir, int blockSize, long blockCount) {
        TierLock lock = TierLock.acquire(dir, name());
        try {
            int port = lock.portToBind(ctx.conf().get(ConfKeys.STORAGE_PORT));
            return TierFiles.onRememberedPort(lock, port, ctx, () -> BlockStorageService.start(ctx, name(), port, bound -> {
                Path file = dir.resolve(PERSISTENT_FILE);
                String how;
                if (Files.exists(file)) {
                    TagFile.Header h = TierFiles.reopen(file, ConfKeys.STORAGE_DRAM_SIZE, blockSize, blockCount);
                    TierFiles.checkSize(file, h.dataOffset() + blockCount * blockSize);
                    how = "reopened (persistent)";
                } else {
                    // Built under a temporary name: a region file that exists is always complete.
                    Path fresh = dir.resolve(PERSISTENT_FILE + ".new");
                    try {
                        create(fresh, blockSize, blockCount, TierFiles.token());
                        Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE);
                    } finally {
                        Files.deleteIfExists(fresh);
                    }
                    how = "created (persistent)";
                }
                lock.rememberPort(bound);
                return open(ctx, file, blockSize, blockCount, bound, how, List.of(), lock);
            }));
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /** Creates a region file with a fresh header; returns the data offset. */
    private static long create(Path file, int blockSize, long blockCount, long token) throws IOException {
        long dataOffset = TagFile.roundUp(TagFile.size(blockCount), DATA_ALIGNMENT);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(dataOffset + blockCount * blockSize);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            TagFile.initialize(ch, blockSize, blockCount, token, dataOffset);
        }
        return dataOffset;
    }

    /** Maps an existing, complete region file and describes the server. */
    private BlockStorageService.Medium open(StorageTierContext ctx, Path file, int blockSize, long blockCount,
                                            int port, String how, List<Path> files, TierLock lock)
            throws IOException {
        TagFile.Header h = TagFile.readHeader(file);
        MappedRegion region = null;
        try {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                region = new MappedRegion(ch, FileChannel.MapMode.READ_WRITE, h.dataOffset(), blockSize, blockCount);
            }
            MappedTagTable tags = MappedTagTable.open(file, blockCount, true);
            StorageServerInfo info = new StorageServerInfo(0, name(), ctx.storageClass(), ctx.advertiseHost(), port,
                    ctx.hostId(), blockCount, blockSize, file.toString(), h.dataOffset(), file.toString(),
                    TagFile.TAG_OFFSET, h.token());
            String summary = "dram: " + blockCount + " blocks of " + ConfValues.formatSize(blockSize) + " ("
                    + ConfValues.formatSize(blockCount * blockSize) + ") in " + file + ", memory-mapped"
                    + (how.isEmpty() ? "" : ", " + how);
            if (!how.isEmpty()) {
                LOG.info("dram tier {} {}", file, how);
            }
            return new BlockStorageService.Medium(new DramMedium(region), tags, info, summary, files, lock != null,
                    lock);
        } catch (IOException | RuntimeException e) {
            if (region != null) {
                region.close();
            }
            throw e;
        }
    }
}
