package io.creel.storage.transport;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * A provider whose transports move bytes of {@link FakeServers}, and which a test can tell to decline
 * servers, be read-only, fail with a given code (optionally after scribbling on its slice, or by
 * throwing instead of returning a failed future) or hold transfers until released. It counts what it
 * was asked to do.
 */
public class FakeTransportProvider implements BlockTransportProvider {
    private final String name;
    private final int cost;
    private final FakeServers servers;

    private volatile boolean declines;
    private volatile boolean throwsOnOpen;
    private volatile boolean readOnly;
    private volatile ErrorCode failure;
    private volatile boolean scribbles;
    private volatile boolean throwsInstead;
    private volatile boolean holds;
    private volatile boolean throwsOnClose;

    private final AtomicInteger opens = new AtomicInteger();
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();
    private final AtomicInteger closes = new AtomicInteger();
    private final List<StorageServerInfo> askedFor = new ArrayList<>();
    private final List<Runnable> held = new ArrayList<>();

    FakeTransportProvider(String name, int cost, FakeServers servers) {
        this.name = name;
        this.cost = cost;
        this.servers = servers;
    }

    /** Cannot reach any server: {@code open} returns null. */
    FakeTransportProvider declining() {
        declines = true;
        return this;
    }

    /** {@code open} throws, as a provider whose library is missing might. */
    FakeTransportProvider throwingOnOpen() {
        throwsOnOpen = true;
        return this;
    }

    /** Its transports only read. */
    FakeTransportProvider readOnly() {
        readOnly = true;
        return this;
    }

    /** Every transfer from now on fails with {@code code} ({@code null}: transfers work again). */
    FakeTransportProvider failingWith(ErrorCode code) {
        failure = code;
        return this;
    }

    /** A failing read first writes junk into its slice; a failing write first consumes half of it. */
    FakeTransportProvider scribblingBeforeFailing() {
        scribbles = true;
        return this;
    }

    /** A failing transfer throws from {@code read}/{@code write} instead of returning a failed future. */
    FakeTransportProvider throwingInsteadOfFailing() {
        throwsInstead = true;
        return this;
    }

    /** Its transports throw when closed (and count the attempt). */
    FakeTransportProvider throwingOnClose() {
        throwsOnClose = true;
        return this;
    }

    /** Transfers wait until {@link #release}; whether they fail is decided then. */
    FakeTransportProvider holding() {
        holds = true;
        return this;
    }

    /** Lets every held transfer go on, in the order they came. */
    void release() {
        List<Runnable> now;
        synchronized (held) {
            now = new ArrayList<>(held);
            held.clear();
        }
        now.forEach(Runnable::run);
    }

    int heldCount() {
        synchronized (held) {
            return held.size();
        }
    }

    /** Times {@code open} was called. */
    int opens() {
        return opens.get();
    }

    /** The servers {@code open} was asked for, in order. */
    List<StorageServerInfo> askedFor() {
        synchronized (askedFor) {
            return List.copyOf(askedFor);
        }
    }

    int reads() {
        return reads.get();
    }

    int writes() {
        return writes.get();
    }

    /** Times a transport of this provider was closed. */
    int closes() {
        return closes.get();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int cost() {
        return cost;
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        opens.incrementAndGet();
        synchronized (askedFor) {
            askedFor.add(server);
        }
        if (throwsOnOpen) {
            throw new IllegalStateException(name + ": native library not loaded");
        }
        return declines ? null : new Transport();
    }

    private final class Transport implements BlockTransport {
        @Override
        public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
            reads.incrementAndGet();
            return transfer(dst, d -> servers.read(block, offset, d), d -> {
                while (d.hasRemaining() && d.position() < d.limit() / 2 + 1) {
                    d.put((byte) 0x7f);
                }
            });
        }

        @Override
        public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
            writes.incrementAndGet();
            if (readOnly) {
                return CompletableFuture.failedFuture(new CreelException(ErrorCode.UNSUPPORTED, name
                        + " is read-only and was asked to write"));
            }
            return transfer(src, s -> servers.write(block, offset, s), s -> s.position(s.limit() / 2));
        }

        private CompletableFuture<Void> transfer(ByteBuffer buffer, Consumer<ByteBuffer> move,
                                                 Consumer<ByteBuffer> scribble) {
            if (holds) {
                CompletableFuture<Void> later = new CompletableFuture<>();
                synchronized (held) {
                    held.add(() -> {
                        try {
                            later.complete(now(buffer, move, scribble));
                        } catch (RuntimeException e) {
                            later.completeExceptionally(e);
                        }
                    });
                }
                return later;
            }
            try {
                return CompletableFuture.completedFuture(now(buffer, move, scribble));
            } catch (CreelException e) {
                if (throwsInstead) {
                    throw e;
                }
                return CompletableFuture.failedFuture(e);
            }
        }

        private Void now(ByteBuffer buffer, Consumer<ByteBuffer> move, Consumer<ByteBuffer> scribble) {
            ErrorCode code = failure;
            if (code != null) {
                if (scribbles) {
                    scribble.accept(buffer);
                }
                throw new CreelException(code, name + " refused the transfer (told to, with " + code + ")");
            }
            move.accept(buffer);
            return null;
        }

        @Override
        public boolean supportsWrite() {
            return !readOnly;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            if (throwsOnClose) {
                throw new IllegalStateException(name + ": device vanished while closing");
            }
        }
    }
}
