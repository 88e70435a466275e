package io.creel.storage.testkit;

import io.creel.common.conf.CreelConf;
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
import java.util.function.Function;

/**
 * The fake block transport of every module's tests: its transports reach {@link FakeServer}s (the
 * {@link MemoryVolume}s of {@link FakeServers}, or whatever a test's lookup finds), and a test can tell
 * it to decline servers, be read-only, fail with a given code (optionally after scribbling on its
 * slice, or by throwing instead of returning a failed future) or hold transfers until released. It
 * counts what it was asked to do. A module registers it through {@code META-INF/services} with a
 * subclass that has a no-argument constructor.
 */
public class FakeTransportProvider implements BlockTransportProvider {
    private final String name;
    private final int cost;
    private final Function<StorageServerInfo, FakeServer> reach;

    private volatile boolean declines;
    private volatile boolean throwsOnOpen;
    private volatile boolean readOnly;
    private volatile ErrorCode failure;
    private volatile boolean scribbles;
    private volatile boolean throwsInstead;
    private volatile boolean holds;
    private volatile boolean throwsOnClose;
    private volatile String unavailable;

    private final AtomicInteger opens = new AtomicInteger();
    private final AtomicInteger reads = new AtomicInteger();
    private final AtomicInteger writes = new AtomicInteger();
    private final AtomicInteger closes = new AtomicInteger();
    private final List<StorageServerInfo> askedFor = new ArrayList<>();
    private final List<Runnable> held = new ArrayList<>();

    /** A provider reaching the volumes of {@code servers}. */
    public FakeTransportProvider(String name, int cost, FakeServers servers) {
        this(name, cost, servers::volume);
    }

    /** A provider reaching what {@code reach} finds for a server; {@code null} from it: cannot reach that one. */
    public FakeTransportProvider(String name, int cost, Function<StorageServerInfo, FakeServer> reach) {
        this.name = name;
        this.cost = cost;
        this.reach = reach;
    }

    /** Cannot reach any server: {@code open} returns null. */
    public FakeTransportProvider declining() {
        declines = true;
        return this;
    }

    /** {@code open} throws, as a provider whose library is missing might. */
    public FakeTransportProvider throwingOnOpen() {
        throwsOnOpen = true;
        return this;
    }

    /** Its transports only read. */
    public FakeTransportProvider readOnly() {
        readOnly = true;
        return this;
    }

    /** Every transfer from now on fails with {@code code} ({@code null}: transfers work again). */
    public FakeTransportProvider failingWith(ErrorCode code) {
        failure = code;
        return this;
    }

    /** A failing read first writes junk into its slice; a failing write first consumes half of it. */
    public FakeTransportProvider scribblingBeforeFailing() {
        scribbles = true;
        return this;
    }

    /** A failing transfer throws from {@code read}/{@code write} instead of returning a failed future. */
    public FakeTransportProvider throwingInsteadOfFailing() {
        throwsInstead = true;
        return this;
    }

    /** Its transports throw when closed (and count the attempt). */
    public FakeTransportProvider throwingOnClose() {
        throwsOnClose = true;
        return this;
    }

    /** Cannot be used in this process at all, for {@code reason} (as RDMA on a machine without it). */
    public FakeTransportProvider unavailableBecause(String reason) {
        unavailable = reason;
        return this;
    }

    /** Transfers wait until {@link #release}; whether they fail is decided then. */
    public FakeTransportProvider holding() {
        holds = true;
        return this;
    }

    /** Lets every held transfer go on, in the order they came. */
    public void release() {
        List<Runnable> now;
        synchronized (held) {
            now = new ArrayList<>(held);
            held.clear();
        }
        now.forEach(Runnable::run);
    }

    public int heldCount() {
        synchronized (held) {
            return held.size();
        }
    }

    /** Times {@code open} was called. */
    public int opens() {
        return opens.get();
    }

    /** The servers {@code open} was asked for, in order. */
    public List<StorageServerInfo> askedFor() {
        synchronized (askedFor) {
            return List.copyOf(askedFor);
        }
    }

    public int reads() {
        return reads.get();
    }

    public int writes() {
        return writes.get();
    }

    /** Times a transport of this provider was closed. */
    public int closes() {
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
    public String unavailableReason(CreelConf conf) {
        return unavailable;
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
        if (declines) {
            return null;
        }
        FakeServer s = reach.apply(server);
        return s == null ? null : new Transport(s);
    }

    private final class Transport implements BlockTransport {
        private final FakeServer server;

        Transport(FakeServer server) {
            this.server = server;
        }

        @Override
        public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
            reads.incrementAndGet();
            return transfer(dst, d -> server.read(block, offset, d), d -> {
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
            return transfer(src, s -> server.write(block, offset, s), s -> s.position(s.limit() / 2));
        }

        private CompletableFuture<Void> transfer(ByteBuffer buffer, Function<ByteBuffer, CompletableFuture<Void>> move,
                                                 Consumer<ByteBuffer> scribble) {
            if (holds) {
                CompletableFuture<Void> later = new CompletableFuture<>();
                synchronized (held) {
                    held.add(() -> {
                        try {
                            now(buffer, move, scribble).whenComplete((v, e) -> {
                                if (e == null) {
                                    later.complete(null);
                                } else {
                                    later.completeExceptionally(e);
                                }
                            });
                        } catch (RuntimeException e) {
                            later.completeExceptionally(e);
                        }
                    });
                }
                return later;
            }
            try {
                return now(buffer, move, scribble);
            } catch (CreelException e) {
                if (throwsInstead) {
                    throw e;
                }
                return CompletableFuture.failedFuture(e);
            }
        }

        private CompletableFuture<Void> now(ByteBuffer buffer, Function<ByteBuffer, CompletableFuture<Void>> move,
                                            Consumer<ByteBuffer> scribble) {
            ErrorCode code = failure;
            if (code != null) {
                if (scribbles) {
                    scribble.accept(buffer);
                }
                throw new CreelException(code, name + " refused the transfer (told to, with " + code + ")");
            }
            return move.apply(buffer);
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
