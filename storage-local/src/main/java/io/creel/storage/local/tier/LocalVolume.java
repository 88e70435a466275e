package io.creel.storage.local.tier;

import io.creel.storage.format.BlockTags;
import io.creel.storage.format.MappedRegion;
import io.creel.storage.format.MappedTagTable;
import io.creel.storage.format.MappingUsers;
import io.creel.storage.local.transport.SameHostFiles;
import io.creel.storage.spi.BlockMedium;
import io.creel.storage.spi.Volume;
import io.creel.storage.spi.VolumeMemory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A DRAM or disk volume: a medium in local files, its mapped tag table, and the files a same-host
 * client opens. Closing releases the medium; a persistent one is forced to its files and kept, any
 * other has its files deleted.
 */
final class LocalVolume implements Volume {
    private static final Logger LOG = LoggerFactory.getLogger(LocalVolume.class);

    private final BlockMedium medium;
    private final MappedTagTable tags;
    private final long token;
    private final SameHostFiles files;
    private final String summary;
    private final List<Path> temporary;
    private final AutoCloseable lock;
    private final LivenessBeat liveness;
    private final MappedRegion memory;
    /** Requests and replies using the medium and tags; the release waits for them (see {@link MappingUsers}). */
    private final MappingUsers users = new MappingUsers(this::release);

    /**
     * @param liveness  the volume's liveness words, beating; marked stopped first at close
     * @param temporary files deleted at close (none for a persistent volume)
     * @param lock      a persistent volume's directory lock, released last; {@code null} for a temporary one
     * @param memory    the medium's blocks mapped into this process (dram), or {@code null} (disk)
     */
    LocalVolume(BlockMedium medium, MappedTagTable tags, LivenessBeat liveness, long token, SameHostFiles files,
                String summary, List<Path> temporary, AutoCloseable lock, MappedRegion memory) {
        this.medium = medium;
        this.tags = tags;
        this.liveness = liveness;
        this.token = token;
        this.files = files;
        this.summary = summary;
        this.temporary = List.copyOf(temporary);
        this.lock = lock;
        this.memory = memory;
    }

    @Override
    public BlockMedium medium() {
        return medium;
    }

    @Override
    public BlockTags tags() {
        return tags.tags();
    }

    @Override
    public long token() {
        return token;
    }

    @Override
    public Map<String, String> attributes() {
        return files.toAttributes();
    }

    /** A DRAM volume's mapped blocks and tag table; nothing for a disk volume. */
    @Override
    public Optional<VolumeMemory> memory() {
        if (memory == null) {
            return Optional.empty();
        }
        return Optional.of(new VolumeMemory(memory.segments(), memory.blocksPerSegment(), memory.blockSize(),
                tags.buffer()));
    }

    @Override
    public String summary() {
        return summary;
    }

    private boolean persistent() {
        return lock != null;
    }

    @Override
    public boolean enterUse() {
        return users.enter();
    }

    @Override
    public void exitUse() {
        users.exit();
    }

    /**
     * Marks the volume stopped at once; releases the medium and tags once the requests and replies
     * still using them have ended (at once if none is): unmapping under them would crash the process.
     */
    @Override
    public void close() {
        liveness.close(); // same-host clients stop using the files from here on, as remote ones lose the port
        users.close();
    }

    private void release() {
        if (persistent()) {
            // The next start serves these bytes and tags: they must be in the files, not only in memory.
            try {
                medium.force();
                tags.force();
            } catch (IOException | RuntimeException e) {
                LOG.error("{}: cannot force the medium to its files: {}", files.dataPath(), e.toString());
            }
        }
        medium.close();
        tags.close();
        if (lock != null) {
            try {
                lock.close();
            } catch (Exception e) {
                LOG.warn("{}: releasing the storage directory failed: {}", files.dataPath(), e.toString());
            }
        }
        for (Path f : temporary) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                LOG.warn("cannot delete {}: {}", f, e.toString());
            }
        }
    }
}
