package io.creel.storage.rdma.tier;

import io.creel.common.conf.CreelConf;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.RequestType;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RequestHandler;
import io.creel.storage.local.tier.DramTier;
import io.creel.storage.rdma.fake.FakeRdmaNetwork;
import io.creel.storage.spi.BlockExporter;
import io.creel.storage.spi.ExportContext;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * A DRAM storage server's volume exported over a fake RDMA network, and a client side on another
 * fake device: what the exporter and transport tests run against, with no storage-server runtime
 * and no namenode. Block size 64 KiB, 16 blocks.
 */
public final class TierFixture implements AutoCloseable {
    public static final int BLOCK = 64 << 10;
    public static final int BLOCKS = 16;
    public static final InetAddress SERVER = address("10.9.0.1");
    public static final InetAddress CLIENT = address("10.9.0.2");

    public final FakeRdmaNetwork network = new FakeRdmaNetwork();
    public final RdmaFabric serverFabric = new RdmaFabric(network, () -> null);
    public final RdmaFabric clientFabric = new RdmaFabric(network, () -> null);
    public final CreelConf serverConf;
    public final CreelConf clientConf;
    public final Volume volume;
    private BlockExporter.Export export;
    private StorageServerInfo info;

    /** Opens the volume in {@code dir}; {@code clientSettings} adds to the client's configuration. */
    public TierFixture(Path dir, Map<String, String> clientSettings) {
        Map<String, String> s = new HashMap<>();
        s.put("creel.block.size", Integer.toString(BLOCK));
        s.put("creel.storage.dram.size", Integer.toString(BLOCK * BLOCKS));
        s.put("creel.storage.dram.path", dir.toString());
        s.put("creel.rdma.address", SERVER.getHostAddress());
        serverConf = CreelConf.of(s);
        Map<String, String> c = new HashMap<>();
        c.put("creel.block.size", Integer.toString(BLOCK));
        c.put("creel.rdma.address", CLIENT.getHostAddress());
        c.put("creel.rdma.buffer.count", "4");
        c.putAll(clientSettings);
        clientConf = CreelConf.of(c);
        volume = new DramTier().open(new TierContext(serverConf, "dram", "localhost", "server-host", port -> 7000));
    }

    /** Exports the volume with {@code exporter} (null if it declines) and describes the server. */
    public BlockExporter.Export export(BlockExporter exporter) {
        export = exporter.export(volume, context(serverConf));
        info = StorageServerInfo.of(3, "dram", "dram", "localhost", 7000, "server-host", BLOCKS, BLOCK,
                volume.token(), export == null ? Map.of() : export.attributes());
        return export;
    }

    /** An export context over {@code conf} that serves no requests of its own. */
    public static ExportContext context(CreelConf conf) {
        return new ExportContext() {
            @Override
            public CreelConf conf() {
                return conf;
            }

            @Override
            public EventLoops loops() {
                return null;
            }

            @Override
            public String serverName() {
                return "dram storage localhost:7000";
            }

            @Override
            public void route(RequestType opcode, RequestHandler handler) {
                throw new AssertionError("the rdma exporter routes no requests, got " + opcode);
            }
        };
    }

    /** The server as clients see it (after {@link #export}). */
    public StorageServerInfo info() {
        return info;
    }

    /** A location of {@code block} under {@code tag}. */
    public BlockLocation at(long block, long tag) {
        return new BlockLocation(42, block, info, block, tag);
    }

    /** Bytes of the block as the server's medium holds them. */
    public byte[] onServer(long block, int offset, int length) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(length);
        volume.medium().read(block, offset, b);
        return b.array();
    }

    /** What the server itself would do for a TCP write: claim, then write. */
    public void serverWrites(long block, long tag, int offset, byte[] bytes) throws IOException {
        volume.tags().claimOrThrow(block, tag, "test");
        volume.medium().write(block, offset, ByteBuffer.wrap(bytes));
    }

    public static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Override
    public void close() {
        if (export != null) {
            export.close();
        }
        volume.close();
        network.close();
    }

    private static InetAddress address(String text) {
        try {
            return InetAddress.getByName(text);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
