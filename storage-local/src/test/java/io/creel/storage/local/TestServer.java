package io.creel.storage.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.local.transport.SameHostFiles;
import io.creel.storage.server.StorageServer;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A tier started the way the runtime starts it, plus a client side to talk to it. */
final class TestServer implements AutoCloseable {
    static final int BLOCK = 1 << 20;

    final EventLoops serverLoops;
    final EventLoops clientLoops;
    final StorageServer service;
    final RpcConnections connections;
    final TransportContext transportContext;

    private TestServer(EventLoops serverLoops, EventLoops clientLoops, StorageServer service, CreelConf conf) {
        this.serverLoops = serverLoops;
        this.clientLoops = clientLoops;
        this.service = service;
        this.connections = new RpcConnections(clientLoops, conf);
        this.transportContext = new TransportContext(conf, connections);
    }

    /** The configuration of a 16-block tier of 1 MiB blocks in {@code dir} on a free port. */
    static CreelConf conf(String tier, Path dir, Map<String, String> extra) {
        Map<String, String> s = new HashMap<>();
        s.put("creel.block.size", "1m");
        s.put("creel.storage.bind.host", "127.0.0.1");
        s.put("creel.storage.port", "0");
        s.put("creel.net.event.loops", "4");
        s.put("creel.client.request.timeout", "10s");
        s.put("creel.storage." + tier + ".size", "16m");
        s.put("creel.storage." + tier + ".path", dir.toString());
        s.putAll(extra);
        return CreelConf.of(s);
    }

    static TestServer start(String tier, Path dir) {
        return start(tier, dir, Map.of());
    }

    static TestServer start(String tier, Path dir, Map<String, String> extra) {
        CreelConf conf = conf(tier, dir, extra);
        EventLoops serverLoops = EventLoops.create(conf, "test-" + tier);
        try {
            StorageServer service = StorageServer.open(conf, tier, serverLoops, "localhost", "test-host");
            service.serve();
            return new TestServer(serverLoops, EventLoops.create(conf, "test-client"), service, conf);
        } catch (RuntimeException e) {
            serverLoops.close();
            throw e;
        }
    }

    /** Starts {@code tier} and returns the failure it must fail with. */
    static CreelException startFailure(String tier, Path dir, Map<String, String> extra) {
        CreelConf conf = conf(tier, dir, extra);
        try (EventLoops loops = EventLoops.create(conf, "test-" + tier)) {
            return assertThrows(CreelException.class,
                    () -> StorageServer.open(conf, tier, loops, "localhost", "test-host").close());
        }
    }

    StorageServerInfo info() {
        return service.describe();
    }

    /** The files a same-host client of this server opens. */
    SameHostFiles files() {
        return SameHostFiles.of(info());
    }

    BlockLocation at(long block, long tag) {
        return new BlockLocation(1, 0, info(), block, tag);
    }

    /** The transport the named provider opens to this server (null if it declines). */
    BlockTransport transport(String provider) {
        return transport(provider, transportContext);
    }

    BlockTransport transport(String provider, TransportContext ctx) {
        for (BlockTransportProvider p : ServiceLoader.load(BlockTransportProvider.class)) {
            if (p.name().equals(provider)) {
                return p.open(info(), ctx);
            }
        }
        throw new AssertionError("no transport provider " + provider);
    }

    static byte[] read(BlockTransport t, BlockLocation at, int offset, int length) {
        ByteBuffer dst = ByteBuffer.allocateDirect(length);
        await(t.read(at, offset, dst));
        assertEquals(length, dst.position(), "the read advances the buffer by the bytes read");
        byte[] out = new byte[length];
        dst.flip().get(out);
        return out;
    }

    static void write(BlockTransport t, BlockLocation at, int offset, byte[] bytes) {
        ByteBuffer src = ByteBuffer.wrap(bytes);
        await(t.write(at, offset, src));
        assertEquals(bytes.length, src.position(), "the write advances the buffer by the bytes written");
    }

    static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(20, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e);
        } catch (TimeoutException e) {
            throw new AssertionError("no answer within 20 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    /** Runs {@code op} and returns the code of the CreelException it fails with. */
    static ErrorCode failureCode(Runnable op) {
        return assertThrows(CreelException.class, op::run).code();
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >> 8));
        }
        return b;
    }

    @Override
    public void close() {
        connections.close();
        service.close();
        clientLoops.close();
        serverLoops.close();
    }
}
