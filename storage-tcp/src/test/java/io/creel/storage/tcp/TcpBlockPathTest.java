package io.creel.storage.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.BlockWriteHeader;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcConnection;
import io.creel.common.rpc.RpcConnections;
import io.creel.common.rpc.RpcServer;
import io.creel.storage.server.StorageServer;
import io.creel.storage.spi.BlockTransport;
import io.creel.storage.spi.BlockTransportProvider;
import io.creel.storage.spi.TransportContext;
import io.creel.storage.transport.TransportSelector;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The TCP exporter and the TCP transport against a real storage server on loopback whose tier keeps
 * its blocks in memory: bytes at block edges, tags, ranges checked on both sides, server failures,
 * and a server that answers a read with the wrong number of bytes.
 */
class TcpBlockPathTest {
    private static final int BLOCK = 64 << 10;
    private static final AtomicInteger HOSTS = new AtomicInteger();
    private static final CreelConf CONF = CreelConf.of(Map.of(
            "creel.block.size", "64k",
            "creel.storage.bind.host", "127.0.0.1",
            "creel.storage.classes", "memory",
            "creel.net.event.loops", "2",
            "creel.client.connect.timeout", "5s",
            "creel.client.request.timeout", "10s"));

    private final String hostId = "tcp-test-host-" + HOSTS.incrementAndGet();
    private EventLoops serverLoops;
    private EventLoops clientLoops;
    private StorageServer server;
    private RpcConnections connections;
    private BlockTransport tcp;

    @BeforeEach
    void start() {
        serverLoops = EventLoops.create(CONF, "tcp-test-server");
        clientLoops = EventLoops.create(CONF, "tcp-test-client");
        server = StorageServer.open(CONF, "memory", serverLoops, "127.0.0.1", hostId);
        server.serve();
        connections = new RpcConnections(clientLoops, CONF);
        tcp = tcpProvider().open(server.describe(), new TransportContext(CONF, connections));
    }

    @AfterEach
    void stop() {
        tcp.close();
        connections.close();
        server.close();
        clientLoops.close();
        serverLoops.close();
    }

    private static BlockTransportProvider tcpProvider() {
        return TransportSelector.loadProviders().stream().filter(p -> p.name().equals("tcp")).findFirst()
                .orElseThrow(() -> new AssertionError("no tcp provider on the class path"));
    }

    private MemoryTier.Memory volume() {
        return MemoryTier.volume(hostId);
    }

    private BlockLocation at(long block, long tag) {
        return new BlockLocation(1, 0, server.describe(), block, tag);
    }

    private static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw CreelException.unwrap(e);
        } catch (TimeoutException e) {
            throw new AssertionError("no answer within 10 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static CreelException failure(CompletableFuture<?> f) {
        return assertThrows(CreelException.class, () -> await(f));
    }

    private byte[] read(BlockLocation b, int offset, int length) {
        ByteBuffer dst = ByteBuffer.allocateDirect(length);
        await(tcp.read(b, offset, dst));
        assertEquals(length, dst.position(), "a read advances the buffer by the bytes read");
        byte[] out = new byte[length];
        dst.flip().get(out);
        return out;
    }

    private void write(BlockLocation b, int offset, byte[] bytes) {
        ByteBuffer src = ByteBuffer.wrap(bytes);
        await(tcp.write(b, offset, src));
        assertEquals(bytes.length, src.position(), "a write advances the buffer by the bytes written");
    }

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i * 7 + (i >> 8));
        }
        return b;
    }

    private RpcConnection rawClient() {
        return await(connections.get(new HostPort("127.0.0.1", server.port())));
    }

    @Test
    void theServerIsServedOverTcpFoundByServiceLoaderAndTheExportAddsNoAttributes() {
        assertEquals(Map.of("memory.blocks", "8"), server.describe().attributes(),
                "the volume's attributes only: host and port are all a TCP client needs");
        assertEquals("tcp", tcp.name());
        assertTrue(tcp.supportsWrite());
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(rawClient().call(Opcode.REGION_GRANT, Empty.INSTANCE,
                Empty::decode)).code(), "TCP serves block requests only");
    }

    @Test
    void bytesAtTheEdgesOfABlockAndOfTheServerReadBackExactly() {
        long first = 0;
        long last = MemoryTier.BLOCK_COUNT - 1;
        byte[] whole = pattern(BLOCK, 1);
        write(at(first, 5), 0, whole);
        write(at(last, 5), 0, whole);
        assertArrayEquals(whole, read(at(first, 5), 0, BLOCK), "a whole block at the server's start");
        assertArrayEquals(whole, read(at(last, 5), 0, BLOCK), "a whole block at the server's end");

        write(at(3, 9), 0, new byte[] {11});
        write(at(3, 9), BLOCK - 1, new byte[] {22});
        write(at(3, 9), BLOCK - 1000, pattern(999, 2));
        assertArrayEquals(new byte[] {11}, read(at(3, 9), 0, 1), "the first byte");
        assertArrayEquals(new byte[] {22}, read(at(3, 9), BLOCK - 1, 1), "the last byte");
        byte[] tail = Arrays.copyOf(pattern(999, 2), 1000);
        tail[999] = 22;
        assertArrayEquals(tail, read(at(3, 9), BLOCK - 1000, 1000), "the tail up to the last byte");
        assertArrayEquals(new byte[0], read(at(3, 9), BLOCK, 0), "nothing, right at the end");
        assertArrayEquals(tail, volume().medium.get(3, BLOCK - 1000, 1000), "the server holds what was written");
        assertArrayEquals(new byte[BLOCK], volume().medium.get(2, 0, BLOCK), "the neighbour before is untouched");
        assertArrayEquals(new byte[BLOCK], volume().medium.get(4, 0, BLOCK), "the neighbour after is untouched");
    }

    @Test
    void manyTransfersInFlightOnOneConnectionEachGetTheirOwnBytes() {
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            writes.add(tcp.write(at(i % MemoryTier.BLOCK_COUNT, 1), (i / MemoryTier.BLOCK_COUNT) * 1000,
                    ByteBuffer.wrap(pattern(1000, i))));
        }
        writes.forEach(TcpBlockPathTest::await);
        List<ByteBuffer> dsts = new ArrayList<>();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            ByteBuffer dst = ByteBuffer.allocate(1000);
            dsts.add(dst);
            reads.add(tcp.read(at(i % MemoryTier.BLOCK_COUNT, 1), (i / MemoryTier.BLOCK_COUNT) * 1000, dst));
        }
        for (int i = 0; i < 64; i++) {
            await(reads.get(i));
            assertArrayEquals(pattern(1000, i), dsts.get(i).array(), "piece " + i);
        }
    }

    @Test
    void aStaleTagIsRefusedOnReadAndWriteWithStaleBlock() {
        write(at(2, 10), 0, pattern(100, 1));
        write(at(2, 20), 50, pattern(100, 2)); // the block was allocated again, with a newer tag

        ByteBuffer dst = ByteBuffer.allocate(10);
        CreelException r = failure(tcp.read(at(2, 10), 0, dst));
        assertEquals(ErrorCode.STALE_BLOCK, r.code());
        assertTrue(r.getMessage().contains("block 2") && r.getMessage().contains("tag 10, now 20"), r.getMessage());
        assertEquals(0, dst.position(), "a refused read moves nothing");

        ByteBuffer src = ByteBuffer.wrap(new byte[10]);
        assertEquals(ErrorCode.STALE_BLOCK, failure(tcp.write(at(2, 10), 0, src)).code());
        assertEquals(0, src.position(), "a refused write moves nothing");
        assertArrayEquals(pattern(100, 2), read(at(2, 20), 50, 100), "the old writer changed nothing");
        assertEquals(20, volume().tags.get(2), "nor the tag");

        assertEquals(ErrorCode.STALE_BLOCK, failure(tcp.read(at(2, 30), 0, ByteBuffer.allocate(1))).code(),
                "a read with a tag the block was never claimed for");
    }

    @Test
    void aBlockReusedWhileBeingReadIsStaleNotItsNewOwnersBytes() {
        write(at(1, 10), 0, pattern(64, 3));
        volume().medium.duringNextRead(() -> volume().tags.claim(1, 11));
        ByteBuffer dst = ByteBuffer.allocate(64);
        assertEquals(ErrorCode.STALE_BLOCK, failure(tcp.read(at(1, 10), 0, dst)).code());
        assertEquals(0, dst.position());
    }

    @Test
    void readsSentStraightFromAMemoryMediumCarryTheBlocksBytes() {
        volume().medium.serveFromMemory(true);
        byte[] whole = pattern(BLOCK, 4);
        write(at(5, 3), 0, whole);
        assertArrayEquals(whole, read(at(5, 3), 0, BLOCK));
        assertArrayEquals(Arrays.copyOfRange(whole, 1000, 1500), read(at(5, 3), 1000, 500));
        ByteBuffer heap = ByteBuffer.allocate(BLOCK);
        await(tcp.read(at(5, 3), 0, heap));
        assertArrayEquals(whole, heap.array(), "into a heap buffer too");
        assertEquals(ErrorCode.STALE_BLOCK, failure(tcp.read(at(5, 2), 0, ByteBuffer.allocate(1))).code(),
                "the tag is checked before sending, as ever");
    }

    @Test
    void aBlockReusedWhileBeingSentFromMemoryIsStaleNotItsNewOwnersBytes() {
        volume().medium.serveFromMemory(true);
        write(at(1, 10), 0, pattern(BLOCK, 3));
        // The block is handed to a newer allocation after the first check, while its bytes go out.
        volume().medium.duringNextRead(() -> volume().tags.claim(1, 11));
        ByteBuffer dst = ByteBuffer.allocateDirect(BLOCK);
        CreelException e = failure(tcp.read(at(1, 10), 0, dst));
        assertEquals(ErrorCode.STALE_BLOCK, e.code(), e.getMessage());
        assertEquals(0, dst.position(), "a failed read does not move the caller's buffer");
        assertArrayEquals(pattern(BLOCK, 3), read(at(1, 11), 0, BLOCK), "the newer allocation reads fine");
    }

    @Test
    void rangesOutsideTheBlockOrTheServerAreInvalidArgumentsOnBothSides() {
        write(at(0, 1), 0, new byte[] {7});
        // The transport checks before sending ...
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(tcp.read(at(0, 1), BLOCK - 10, ByteBuffer.allocate(11))).code());
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(tcp.write(at(0, 1), BLOCK, ByteBuffer.allocate(1))).code());
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(tcp.read(at(0, 1), -1, ByteBuffer.allocate(1))).code());
        CreelException beyond = failure(tcp.read(at(MemoryTier.BLOCK_COUNT, 1), 0, ByteBuffer.allocate(1)));
        assertEquals(ErrorCode.INVALID_ARGUMENT, beyond.code());
        assertTrue(beyond.getMessage().contains("block 8 does not exist"), beyond.getMessage());

        // ... and the server checks whatever a client sends.
        RpcConnection raw = rawClient();
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(raw.call(Opcode.BLOCK_READ,
                new BlockReadRequest(0, 1, BLOCK - 10, 11), body -> null)).code(), "offset+length beyond the block");
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(raw.call(Opcode.BLOCK_READ,
                new BlockReadRequest(MemoryTier.BLOCK_COUNT, 1, 0, 1), body -> null)).code(), "block beyond the count");
        assertEquals(ErrorCode.INVALID_ARGUMENT, failure(raw.callWithPayload(Opcode.BLOCK_WRITE,
                new BlockWriteHeader(0, 1, BLOCK - 2), Unpooled.wrappedBuffer(new byte[] {1, 2, 3, 4}),
                Empty::decode)).code(), "a payload running past the block");
        assertArrayEquals(new byte[2], volume().medium.get(0, BLOCK - 2, 2), "nothing of it was written");
        assertArrayEquals(new byte[] {7}, read(at(0, 1), 0, 1), "the connection still serves");
    }

    @Test
    void aMediumFailureIsInternalNamingTheServerAndBlock() {
        volume().medium.failNext(new IOException("bad page at 0x2000"));
        CreelException r = failure(tcp.read(at(2, 0), 0, ByteBuffer.allocate(4)));
        assertEquals(ErrorCode.INTERNAL, r.code());
        assertEquals("memory storage 127.0.0.1:" + server.port() + ": read of block 2 failed: "
                + "java.io.IOException: bad page at 0x2000", r.getMessage());

        volume().medium.failNext(new IOException("bad page at 0x3000"));
        CreelException w = failure(tcp.write(at(3, 4), 0, ByteBuffer.allocate(4)));
        assertEquals(ErrorCode.INTERNAL, w.code());
        assertTrue(w.getMessage().contains("write of block 3") && w.getMessage().contains("0x3000"), w.getMessage());
        assertArrayEquals(new byte[4], read(at(2, 0), 0, 4), "the server serves on after a failed I/O");
    }

    @Test
    void aStoppedServerIsUnavailableNotAHang() {
        write(at(0, 1), 0, new byte[] {1});
        server.close();
        assertEquals(ErrorCode.UNAVAILABLE, failure(tcp.read(at(0, 1), 0, ByteBuffer.allocate(1))).code());
    }

    @Test
    void aBlockReadReplyOfTheWrongLengthIsAProtocolError() {
        for (int delta : new int[] {-1, 1}) {
            RpcServer liar = RpcServer.start("liar", "127.0.0.1", 0, serverLoops, CONF.maxFrameSize(), call -> {
                BlockReadRequest req = BlockReadRequest.decode(call.body());
                call.replyPayload(Unpooled.wrappedBuffer(new byte[req.length() + delta]));
            });
            try {
                StorageServerInfo info = StorageServerInfo.of(0, "memory", "memory", "127.0.0.1", liar.port(), "liar",
                        MemoryTier.BLOCK_COUNT, BLOCK, 1, Map.of());
                BlockTransport t = tcpProvider().open(info, new TransportContext(CONF, connections));
                ByteBuffer dst = ByteBuffer.allocate(100);
                CreelException e = failure(t.read(new BlockLocation(1, 0, info, 2, 1), 0, dst));
                assertEquals(ErrorCode.PROTOCOL, e.code());
                assertEquals("BLOCK_READ reply from 127.0.0.1:" + liar.port() + " carried " + (100 + delta)
                        + " payload bytes where 100 were asked for", e.getMessage());
                assertEquals(0, dst.position(), "a read that failed does not move the caller's buffer");
                assertArrayEquals(new byte[100], dst.array(), "nothing of the wrong reply lands in it");
            } finally {
                liar.close();
            }
        }
    }
}
