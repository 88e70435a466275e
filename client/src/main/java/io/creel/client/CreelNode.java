package io.creel.client;

import io.creel.client.block.NodeRef;
import io.creel.client.io.BagInputStream;
import io.creel.client.io.BagReader;
import io.creel.client.io.NodeInputStream;
import io.creel.client.io.NodeOutputStream;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.NodeInfo;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * A node as returned by create, lookup or openForAppend: its path and what the namenode said about
 * it, plus access to its data. Files and KeyValues give readers (up to {@link NodeInfo#length()},
 * the synced length when this handle was made) and, when the handle holds the write lease, one
 * writer; a Bag gives one stream over all its files.
 */
public final class CreelNode {
    private final CreelClient client;
    private final String path;
    private final NodeInfo info;
    private final int partition;
    private final long lease;
    private final boolean hasFirstBlock;
    /** The node's bytes when the namenode keeps them inline (they came with the lookup), else {@code null}. */
    private final byte[] inline;
    /** The namenode's inline limit, for a writer. */
    private final int inlineLimit;
    private DirectWriter writer;

    CreelNode(CreelClient client, String path, NodeInfo info, int partition, long lease, boolean hasFirstBlock,
              byte[] inline, int inlineLimit) {
        this.client = client;
        this.path = path;
        this.info = info;
        this.partition = partition;
        this.lease = lease;
        this.hasFirstBlock = hasFirstBlock;
        this.inline = inline;
        this.inlineLimit = inlineLimit;
    }

    public String path() {
        return path;
    }

    public NodeInfo info() {
        return info;
    }

    public NodeType type() {
        return info.type();
    }

    /** Readable bytes when this handle was made (a File's synced length, a value's length). */
    public long length() {
        return info.length();
    }

    /**
     * Whether the node's bytes came with this handle because the namenode keeps them inline (a small
     * File or KeyValue): reading them needs no data transfer, and the node has no blocks.
     */
    public boolean isInline() {
        return inline != null;
    }

    /** The inline bytes (not to be changed), or {@code null}. */
    byte[] inlineData() {
        return inline;
    }

    /** Whether this handle holds the write lease (made by create of a File/KeyValue, or openForAppend). */
    public boolean isWritable() {
        return lease != 0;
    }

    NodeRef ref() {
        return new NodeRef(partition, info.id(), path, info.firstBlockSize());
    }

    /** The writer of this node; the same one on every call. Needs the write lease. */
    public synchronized DirectWriter writer() {
        requireData();
        if (lease == 0) {
            throw new CreelException(ErrorCode.LEASE_CONFLICT, path + ": not open for writing (use create, or "
                    + "openForAppend for a File)");
        }
        if (writer == null) {
            writer = new DirectWriter(path, ref(), lease, info.length(), client.blockIo(), client.router(),
                    hasFirstBlock, inline, inlineLimit);
        }
        return writer;
    }

    /** A new reader positioned at 0. */
    public DirectReader reader() {
        requireData();
        return dataReader();
    }

    /** A reader of the node's data whatever its type (a container's data is its directory records). */
    DirectReader dataReader() {
        return new DirectReader(path, ref(), info.length(), client.blockIo(), client.readAhead(), inline);
    }

    /** Reads at {@code position} into {@code dst}; -1 at or beyond the end. */
    public CompletableFuture<Integer> read(long position, ByteBuffer dst) {
        return Futures.guard(() -> reader().read(position, dst));
    }

    /**
     * A buffered stream over the writer ({@code creel.client.buffer.size} buffers, sent
     * asynchronously); closing it closes the writer, which publishes the data.
     */
    public OutputStream outputStream() {
        return new NodeOutputStream(writer(), client.bufferSize(), client.requestTimeout());
    }

    /** A buffered stream over a new reader, reading ahead one buffer; it can seek. */
    public NodeInputStream inputStream() {
        return new NodeInputStream(reader(), client.bufferSize(), client.requestTimeout());
    }

    /**
     * The Bag's files (in listing order) read as one stream, with
     * {@code creel.client.bag.reads.in.flight} files being read at once.
     */
    public BagReader bagReader() {
        if (info.type() != NodeType.BAG) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + " is a " + info.type().displayName()
                    + ", not a Bag");
        }
        return new BagReader(client, client.list(path), client.bagReadsInFlight(), client.bufferSize());
    }

    /** {@link #bagReader()} as a blocking {@link InputStream}. */
    public InputStream bagStream() {
        return new BagInputStream(bagReader(), client.requestTimeout());
    }

    private void requireData() {
        if (info.type() != NodeType.FILE && info.type() != NodeType.KEYVALUE) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + " is a " + info.type().displayName()
                    + "; only Files and KeyValues have data to read or write");
        }
    }

    @Override
    public String toString() {
        return path + " (" + info.type().displayName() + ", " + info.length() + " bytes)";
    }
}
