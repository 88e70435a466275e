package io.creel.storage.nvmf.tier;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnections;
import io.creel.storage.nvmf.format.NvmfAttributes;
import io.creel.storage.nvmf.format.VolumeLayout;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.nvmf.tcp.FakeTarget;
import io.creel.storage.nvmf.transport.NvmfTransportProvider;
import io.creel.storage.server.StorageServer;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.tcp.transport.TcpTransportProvider;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An nvmf storage server on a {@link FakeTarget} (an in-memory NVMe/TCP controller on loopback),
 * served over the TCP exporter, and the client transports that reach it: directly at the target
 * ({@code nvmf-tcp}) and through the server ({@code tcp}). No namenode: tests make block locations
 * and tags themselves, as a namenode would.
 */
final class NvmfServerFixture implements AutoCloseable {
    static final int BLOCK = 1 << 20;
    static final Duration WAIT = Duration.ofSeconds(30);

    final FakeTarget target;
    final EventLoops loops;
    final CreelConf conf;
    final StorageServer server;
    final RpcConnections connections;
    private final List<BlockTransport> opened = new ArrayList<>();

    /** A 64 MiB target of 512-byte sectors, and a server on it with {@code settings} added. */
    NvmfServerFixture(Map<String, String> settings) throws InterruptedException {
        this(new FakeTarget(512, (64L << 20) / 512), settings);
    }

    NvmfServerFixture(FakeTarget target, Map<String, String> settings) {
        this(target, conf(target, settings));
    }

    /** A server on a real target, which {@code conf} names (no fake to look into: {@link #onTarget} fails). */
    static NvmfServerFixture onRealTarget(CreelConf conf) {
        return new NvmfServerFixture(null, conf);
    }

    private NvmfServerFixture(FakeTarget target, CreelConf conf) {
        this.target = target;
        this.conf = conf;
        this.loops = EventLoops.create(conf, "nvmf-tier-test");
        StorageServer s = null;
        try {
            s = StorageServer.open(conf, "nvmf", loops, "127.0.0.1", "test-host");
            s.serve();
        } catch (RuntimeException e) {
            loops.close();
            if (target != null) {
                target.close();
            }
            throw e;
        }
        this.server = s;
        this.connections = new RpcConnections(loops, conf);
    }

    static CreelConf conf(FakeTarget target, Map<String, String> settings) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("creel.storage.nvmf.address", "127.0.0.1");
        m.put("creel.storage.nvmf.tcp.port", Integer.toString(target.port()));
        m.put("creel.storage.nvmf.nqn", FakeTarget.NQN);
        m.putAll(settings);
        return baseConf(m);
    }

    /** Test settings of the server and its clients, with {@code settings} over them. */
    static CreelConf baseConf(Map<String, String> settings) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("creel.storage.classes", "dram,nvmf");
        m.put("creel.storage.bind.host", "127.0.0.1");
        m.put("creel.block.size", "1m");
        m.put("creel.net.event.loops", "2");
        m.put("creel.storage.nvmf.reconnect.interval", "100ms");
        m.put("creel.storage.nvmf.command.timeout", "3s");
        m.put("creel.storage.nvmf.connect.timeout", "3s");
        m.put("creel.client.nvmf.command.timeout", "3s");
        m.put("creel.client.nvmf.connect.timeout", "3s");
        m.putAll(settings);
        return CreelConf.of(m);
    }

    StorageServerInfo info() {
        return server.describe();
    }

    VolumeLayout layout() {
        return NvmfAttributes.of(info()).layout();
    }

    /** The transport straight to the target over NVMe/TCP. */
    BlockTransport direct() {
        return direct(Fabric.TCP);
    }

    /** The transport straight to the target over {@code fabric}. */
    BlockTransport direct(Fabric fabric) {
        NvmfTransportProvider p = fabric == Fabric.TCP ? new NvmfTransportProvider.Tcp()
                : new NvmfTransportProvider.Rdma();
        return open(p.open(info(), new TransportContext(conf, connections)));
    }

    /** The transport through the server. */
    BlockTransport throughServer() {
        return open(new TcpTransportProvider().open(info(), new TransportContext(conf, connections)));
    }

    private BlockTransport open(BlockTransport t) {
        if (t == null) {
            throw new AssertionError("the provider declined the server");
        }
        opened.add(t);
        return t;
    }

    BlockLocation at(long block, long tag) {
        return new BlockLocation(1, 0, info(), block, tag);
    }

    /** Bytes of {@code block} as the (fake) target holds them. */
    byte[] onTarget(long block, int offset, int length) {
        if (target == null) {
            throw new IllegalStateException("a real target cannot be looked into");
        }
        return target.contents(layout().byteOf(block, offset), length);
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed * 7 + (i >>> 9));
        }
        return b;
    }

    static void write(BlockTransport t, BlockLocation at, int offset, byte[] bytes) {
        ByteBuffer src = ByteBuffer.wrap(bytes);
        await(t.write(at, offset, src));
        if (src.hasRemaining()) {
            throw new AssertionError(t.name() + " write left " + src.remaining() + " bytes unconsumed");
        }
    }

    static byte[] read(BlockTransport t, BlockLocation at, int offset, int length) {
        ByteBuffer dst = ByteBuffer.allocate(length);
        await(t.read(at, offset, dst));
        if (dst.hasRemaining()) {
            throw new AssertionError(t.name() + " read left " + dst.remaining() + " bytes unfilled");
        }
        return dst.array();
    }

    static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e);
        } catch (TimeoutException e) {
            throw new AssertionError("no answer within " + WAIT, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    @Override
    public void close() {
        opened.forEach(BlockTransport::close);
        connections.close();
        server.close();
        loops.close();
        if (target != null) {
            target.close();
        }
    }
}
