package io.creel.storage.spi;

import io.creel.storage.format.BlockTags;
import java.util.Map;
import java.util.Optional;

/**
 * One opened medium of a tier: its blocks, the tag of each block, and what a same-host client needs
 * to reach it without the server. The storage-server runtime registers it with namenodes and hands it
 * to every {@link BlockExporter}, which serve its blocks to clients.
 */
public interface Volume extends AutoCloseable {
    /** The bytes. */
    BlockMedium medium();

    /** The tag of every block: writers claim, readers check (see {@link BlockTags}). */
    BlockTags tags();

    /** Random identity of this medium, written in its tag file; stays the same for a persistent medium. */
    long token();

    /**
     * Attributes clients need to reach the medium directly (for example the files a same-host client
     * maps), added to the server's description. Names are prefixed by the module that reads them.
     */
    Map<String, String> attributes();

    /**
     * The blocks and tags as memory this process maps, for exporters that give a device direct
     * access to it (RDMA); empty (the default) for a volume whose medium is not memory, such as a
     * disk file, which such exporters then decline.
     */
    default Optional<VolumeMemory> memory() {
        return Optional.empty();
    }

    /** A line for the log at start: medium, size, path, I/O mode (e.g. "O_DIRECT" or "page cache"). */
    String summary();

    /**
     * Why the volume cannot serve its blocks right now, or {@code null} while it can. Local media
     * never fail this way; a medium reached over a network (an NVMe-oF target) does when it loses its
     * target. Meanwhile the storage-server runtime sends no heartbeats, so namenodes take the server
     * out of allocation and report it dead, and it registers or beats again once this clears.
     */
    default String unavailable() {
        return null;
    }

    /**
     * Enters a use of the medium, the tags or the memory that must not outlive their release (a
     * request being served, a reply being sent from the memory): false once {@link #close} was
     * called, and the caller must then fail without touching them. Every true is matched by one
     * {@link #exitUse}. A volume whose release could pull memory out from under a running use (an
     * explicit unmap is a SIGSEGV, not an exception) counts its users; the default does not.
     */
    default boolean enterUse() {
        return true;
    }

    /** Ends a use that {@link #enterUse} let in. */
    default void exitUse() {
    }

    /**
     * Releases the medium: a persistent one is forced to its files and kept, any other has its files
     * deleted. Called after every exporter has stopped; uses still running (see {@link #enterUse})
     * are waited out: the release then happens when the last one ends.
     */
    @Override
    void close();
}
