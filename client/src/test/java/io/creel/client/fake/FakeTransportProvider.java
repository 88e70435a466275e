package io.creel.client.fake;

import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** Reaches {@link FakeStorage} servers (tier "fake") in this JVM, with the storage's delay. */
public final class FakeTransportProvider implements BlockTransportProvider {
    static final ScheduledExecutorService TIMER = Executors.newScheduledThreadPool(4, r -> {
        Thread t = new Thread(r, "fake-transport");
        t.setDaemon(true);
        return t;
    });

    @Override
    public String name() {
        return "fake";
    }

    @Override
    public int cost() {
        return 1;
    }

    @Override
    public BlockTransport open(StorageServerInfo server, TransportContext context) {
        if (!"fake".equals(server.tier())) {
            return null;
        }
        FakeStorage s = FakeStorage.byPort(server.port());
        return s == null ? null : new Transport(s);
    }

    private static final class Transport implements BlockTransport {
        private final FakeStorage storage;

        Transport(FakeStorage storage) {
            this.storage = storage;
        }

        @Override
        public CompletableFuture<Void> read(BlockLocation block, int offset, ByteBuffer dst) {
            int now = storage.readsInFlight.incrementAndGet();
            storage.maxReadsInFlight.accumulateAndGet(now, Math::max);
            storage.reads.incrementAndGet();
            storage.onReadStart.run();
            return later(() -> {
                try {
                    storage.read(block.blockNumber(), block.tag(), offset, dst);
                } finally {
                    storage.readsInFlight.decrementAndGet();
                }
            });
        }

        @Override
        public CompletableFuture<Void> write(BlockLocation block, int offset, ByteBuffer src) {
            return later(() -> storage.write(block.blockNumber(), block.tag(), offset, src));
        }

        private CompletableFuture<Void> later(Runnable r) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            Runnable task = () -> {
                try {
                    r.run();
                    f.complete(null);
                } catch (RuntimeException e) {
                    f.completeExceptionally(e);
                }
            };
            long d = storage.delayMillis;
            if (storage.synchronous) {
                task.run();
            } else if (d > 0) {
                TIMER.schedule(task, d, TimeUnit.MILLISECONDS);
            } else {
                TIMER.execute(task);
            }
            return f;
        }

        @Override
        public String name() {
            return "fake";
        }

        @Override
        public void close() {
            // nothing held
        }
    }
}
