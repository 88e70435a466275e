package io.creel.common.storage;

import io.creel.common.protocol.StorageServerInfo;

/** A running tier: it serves block reads and writes until closed. */
public interface StorageService extends AutoCloseable {
    /** How clients reach this server and its files; the server id is 0 until a namenode assigns one. */
    StorageServerInfo describe();

    /** The server's block tag table (shared with same-host clients through the tag file). */
    BlockTags tags();

    /** A line for the log at start: medium, size, path, I/O mode (e.g. "O_DIRECT" or "page cache"). */
    String summary();

    /** Stops serving and releases the medium. */
    @Override
    void close();
}
