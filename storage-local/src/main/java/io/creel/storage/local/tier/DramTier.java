package io.creel.storage.local.tier;

import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.storage.StorageKeys;
import io.creel.storage.format.MappedRegion;
import io.creel.storage.format.MappedTagTable;
import io.creel.storage.format.TagFile;
import io.creel.storage.local.LocalTierKeys;
import io.creel.storage.local.medium.DramMedium;
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
 * The "dram" tier: one region file under {@code creel.storage.dram.path} (a tmpfs), holding the tag
 * file header and tag table followed, at a 2 MiB-aligned {@code dataOffset}, by the blocks. The server
 * and same-host clients map the same file.
 *
 * <p>By default the file is {@code dram-<port>-<random>.region} and is deleted when the server
 * closes. With {@code creel.storage.persistent} it is {@code dram.region}, kept at close (forced
 * first) and served again by the next start in that directory, with the same token and port: the
 * server keeps its identity and its data ({@code dram.lock} holds the directory and the port).
 *
 * <p>With {@code creel.storage.dram.preallocate} (the default) a new region file's memory is allocated
 * at start ({@link Preallocation}) and the whole region is mapped into the server at once.
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
    public Volume open(TierContext ctx) {
        CreelConf conf = ctx.conf();
        int blockSize = StorageKeys.blockSize(conf);
        long blockCount = TierFiles.blockCount(LocalTierKeys.DRAM_SIZE, conf.get(LocalTierKeys.DRAM_SIZE), blockSize);
        Path dir = TierFiles.directory(LocalTierKeys.DRAM_PATH, conf.get(LocalTierKeys.DRAM_PATH));
        PrivateFiles privacy = PrivateFiles.of(conf);
        privacy.directory(dir);
        if (conf.get(StorageKeys.PERSISTENT)) {
            return startPersistent(ctx, dir, blockSize, blockCount, privacy);
        }
        int port = ctx.listen(conf.get(StorageKeys.PORT));
        Path file = dir.resolve(TierFiles.uniqueName("dram", port) + ".region");
        try {
            long dataOffset = create(file, blockSize, blockCount, TierFiles.token(), privacy);
            if (conf.get(LocalTierKeys.DRAM_PREALLOCATE)) {
                Preallocation.fill(file, dataOffset, blockCount * blockSize);
            }
            return open(file, blockSize, blockCount, conf, "", List.of(file), null);
        } catch (IOException | RuntimeException e) {
            TierFiles.deleteQuietly(file);
            throw TierFiles.cannotPrepare(name(), e);
        }
    }

    private Volume startPersistent(TierContext ctx, Path dir, int blockSize, long blockCount, PrivateFiles privacy) {
        TierLock lock = TierLock.acquire(dir, name());
        try {
            int bound = TierFiles.listenOnRememberedPort(lock, ctx);
            Path file = dir.resolve(PERSISTENT_FILE);
            try {
                String how;
                if (Files.exists(file)) {
                    TagFile.Header h = TierFiles.reopen(file, LocalTierKeys.DRAM_SIZE, blockSize, blockCount);
                    TierFiles.checkSize(file, h.dataOffset() + blockCount * blockSize);
                    privacy.restrict(file); // made by an older server, perhaps with the umask's permissions
                    how = "reopened (persistent)";
                } else {
                    // Built under a temporary name: a region file that exists is always complete.
                    Path fresh = dir.resolve(PERSISTENT_FILE + ".new");
                    try {
                        long dataOffset = create(fresh, blockSize, blockCount, TierFiles.token(), privacy);
                        if (ctx.conf().get(LocalTierKeys.DRAM_PREALLOCATE)) {
                            Preallocation.fill(fresh, dataOffset, blockCount * blockSize);
                        }
                        Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE);
                    } finally {
                        Files.deleteIfExists(fresh);
                    }
                    how = "created (persistent)";
                }
                lock.rememberPort(bound);
                return open(file, blockSize, blockCount, ctx.conf(), how, List.of(), lock);
            } catch (IOException e) {
                throw TierFiles.cannotPrepare(name(), e);
            }
        } catch (RuntimeException e) {
            lock.close();
            throw e;
        }
    }

    /** How often the server's liveness words are refreshed: its heartbeat interval. */
    static long beatMillis(CreelConf conf) {
        return conf.get(StorageKeys.HEARTBEAT_INTERVAL).toMillis();
    }

    /** Creates a region file with a fresh header; returns the data offset. */
    private static long create(Path file, int blockSize, long blockCount, long token, PrivateFiles privacy)
            throws IOException {
        long dataOffset = TagFile.roundUp(TagFile.size(blockCount), DATA_ALIGNMENT);
        privacy.create(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(dataOffset + blockCount * blockSize);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            TagFile.initialize(ch, blockSize, blockCount, token, dataOffset);
        }
        return dataOffset;
    }

    /**
     * Maps an existing, complete region file and describes the server. With preallocation the whole
     * region is mapped in at once (a reopened region's never-written pages are allocated by it), so the
     * server's own copies never fault page by page.
     */
    private LocalVolume open(Path file, int blockSize, long blockCount, CreelConf conf, String how,
                             List<Path> temporary, TierLock lock) throws IOException {
        long beatMillis = beatMillis(conf);
        TagFile.Header h = TagFile.readHeader(file);
        MappedRegion region = null;
        try {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                region = new MappedRegion(ch, FileChannel.MapMode.READ_WRITE, h.dataOffset(), blockSize, blockCount);
            }
            if (conf.get(LocalTierKeys.DRAM_PREALLOCATE)) {
                for (long b = 0; b < blockCount; b++) {
                    region.mapIn(b);
                }
            }
            MappedTagTable tags = MappedTagTable.open(file, blockCount, true);
            LivenessBeat liveness;
            try {
                liveness = LivenessBeat.start(file, beatMillis);
            } catch (IOException | RuntimeException e) {
                tags.close();
                throw e;
            }
            String summary = "dram: " + blockCount + " blocks of " + ConfValues.formatSize(blockSize) + " ("
                    + ConfValues.formatSize(blockCount * blockSize) + ") in " + file + ", memory-mapped"
                    + (how.isEmpty() ? "" : ", " + how);
            if (!how.isEmpty()) {
                LOG.info("dram tier {} {}", file, how);
            }
            return new LocalVolume(new DramMedium(region), tags, liveness, h.token(),
                    new SameHostFiles(file.toString(), h.dataOffset(), file.toString(), TagFile.TAG_OFFSET), summary,
                    temporary, lock, region);
        } catch (IOException | RuntimeException e) {
            if (region != null) {
                region.close();
            }
            throw e;
        }
    }
}
