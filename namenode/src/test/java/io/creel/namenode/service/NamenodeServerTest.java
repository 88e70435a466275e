package io.creel.namenode.service;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.DirectoryRecord;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.CommitRequest;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.HeartbeatReply;
import io.creel.common.protocol.HeartbeatRequest;
import io.creel.common.protocol.LocateReply;
import io.creel.common.protocol.LocateRequest;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.MapReply;
import io.creel.common.protocol.MapRequest;
import io.creel.common.protocol.MoveRequest;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RegisterReply;
import io.creel.common.protocol.RegisterRequest;
import io.creel.common.protocol.RemoveRequest;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcClient;
import io.creel.common.rpc.RpcServer;
import io.creel.namenode.NamenodeServer;
import io.creel.namenode.testing.Expect;
import io.creel.namenode.testing.MemoryBlocks;
import io.creel.storage.format.BlockTags;
import io.creel.storage.runtime.RegionArbiter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The namenode over real loopback TCP; directory records go to the "memory" test transport. */
class NamenodeServerTest {

    private final CreelConf conf = CreelConf.of(Map.of("creel.block.size", "4k", "creel.namenode.reuse.delay", "200ms",
            "creel.net.event.loops", "2"));
    private EventLoops loops;
    private NamenodeServer server;
    private final List<RpcClient> clients = new ArrayList<>();
    private StorageServerInfo storage;
    private final List<RpcServer> fakeServers = new ArrayList<>();

    @BeforeEach
    void start() {
        loops = EventLoops.create(conf, "test-namenode");
        server = NamenodeServer.start(conf, "127.0.0.1", 0, loops);
        storage = fakeStorage("memory", 1000, 42);
    }

    /**
     * A storage server's control plane (region grants) on a fresh port; its blocks live in the
     * "memory" test transport, keyed by that port, so tags never clash across tests.
     */
    private StorageServerInfo fakeStorage(String tier, long blocks, long token) {
        BlockTags tags = new BlockTags(ByteBuffer.allocateDirect((int) blocks * 8), blocks);
        RegionArbiter arbiter = new RegionArbiter("fake " + tier, blocks, 64, tags);
        RpcServer rpc = RpcServer.start("fake " + tier, "127.0.0.1", 0, loops, conf.maxFrameSize(), arbiter);
        fakeServers.add(rpc);
        return StorageServerInfo.of(0, tier, "dram", "127.0.0.1", rpc.port(), "m1", blocks, 4096, token, java.util.Map.of());
    }

    @AfterEach
    void stop() {
        clients.forEach(RpcClient::close);
        fakeServers.forEach(RpcServer::close);
        server.close();
        loops.close();
    }

    private RpcClient connect() {
        RpcClient c = Expect.done(RpcClient.connect(new HostPort("127.0.0.1", server.port()), loops,
                conf.maxFrameSize(), Duration.ofSeconds(5), Duration.ofSeconds(10)));
        clients.add(c);
        return c;
    }

    private int register(RpcClient c) {
        return Expect.done(c.call(Opcode.REGISTER, new RegisterRequest(storage), RegisterReply::decode)).serverId();
    }

    private static CompletableFuture<OpenReply> create(RpcClient c, String path, NodeType type) {
        return c.call(Opcode.CREATE, new CreateRequest(path, type, "", "", true), OpenReply::decode);
    }

    @Test
    void aNamenodeAskedToServeOverATransportThatIsNotThereFailsToStartAndFreesItsPort() throws Exception {
        CreelException e = assertThrows(CreelException.class,
                () -> NamenodeServer.start(conf, "127.0.0.1", 0, loops, "rdma"));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("no RPC transport for rdma:// addresses"), e.getMessage());
        // The TCP port it had bound is free again: a namenode starts on it.
        try (ServerSocket probe = new ServerSocket(0)) {
            int port = probe.getLocalPort();
            probe.close();
            CreelException again = assertThrows(CreelException.class,
                    () -> NamenodeServer.start(conf, "127.0.0.1", port, loops, "rdma"));
            assertEquals(ErrorCode.CONFIGURATION, again.code());
            NamenodeServer.start(conf, "127.0.0.1", port, loops, "creel").close();
        }
    }

    @Test
    void createLookupMapCommitRoundTrip() {
        RpcClient c = connect();
        register(c);
        OpenReply created = Expect.done(create(c, "/f", NodeType.FILE));
        assertNotEquals(0, created.lease());
        assertNotNull(created.firstBlock());
        assertEquals("memory", created.firstBlock().server().tier());
        long id = created.node().id();
        MapReply second = Expect.done(c.call(Opcode.MAP, new MapRequest(id, 1, created.lease()), MapReply::decode));
        assertEquals(1, second.block().blockIndex());
        NodeReply committed = Expect.done(c.call(Opcode.COMMIT, CommitRequest.close(id, created.lease(), 5000),
                NodeReply::decode));
        assertEquals(5000, committed.node().length());
        OpenReply looked = Expect.done(c.call(Opcode.LOOKUP, new LookupRequest("/f", false), OpenReply::decode));
        assertEquals(5000, looked.node().length());
        assertEquals(created.firstBlock(), looked.firstBlock());
        assertEquals(second.block(), Expect.done(c.call(Opcode.MAP, new MapRequest(id, 1, 0), MapReply::decode)).block());
    }

    @Test
    void locateAnswersARunOfBlocksAsMapWouldOneByOneAndStopsAtTheEnd() {
        RpcClient c = connect();
        register(c);
        OpenReply created = Expect.done(create(c, "/f", NodeType.FILE));
        long id = created.node().id();
        java.util.List<io.creel.common.protocol.BlockLocation> mapped = new java.util.ArrayList<>();
        mapped.add(created.firstBlock());
        for (int i = 1; i < 5; i++) {
            mapped.add(Expect.done(c.call(Opcode.MAP, new MapRequest(id, i, created.lease()), MapReply::decode)).block());
        }
        Expect.done(c.call(Opcode.COMMIT, CommitRequest.close(id, created.lease(), 5 * 4096), NodeReply::decode));
        LocateReply all = Expect.done(c.call(Opcode.LOCATE, new LocateRequest(id, 0, 64), LocateReply::decode));
        assertEquals(mapped, all.blocks(), "five blocks, though 64 were asked for");
        LocateReply tail = Expect.done(c.call(Opcode.LOCATE, new LocateRequest(id, 3, 1), LocateReply::decode));
        assertEquals(mapped.subList(3, 4), tail.blocks());
        Expect.error(ErrorCode.NOT_FOUND, () -> c.call(Opcode.LOCATE, new LocateRequest(id, 5, 2),
                LocateReply::decode), "has no block at index 5");
        Expect.error(ErrorCode.NOT_FOUND, () -> c.call(Opcode.LOCATE, new LocateRequest(id + 1000, 0, 2),
                LocateReply::decode), "does not exist");
    }

    @Test
    void errorsTravelWithTheirCodeAndRule() {
        RpcClient c = connect();
        register(c);
        Expect.done(create(c, "/t", NodeType.TABLE));
        Expect.error(ErrorCode.INVALID_PARENT, () -> create(c, "/t/f", NodeType.FILE),
                "a File may only live in a Directory or a Bag");
        Expect.error(ErrorCode.NOT_FOUND, () -> c.call(Opcode.LOOKUP, new LookupRequest("/nope", false),
                OpenReply::decode), "/nope");
        Expect.error(ErrorCode.INVALID_NAME, () -> create(c, "/a//b", NodeType.FILE), "empty component");
    }

    @Test
    void theNamenodeWritesDirectoryRecordsThroughTheDataPlaneBeforeReplying() {
        RpcClient c = connect();
        register(c);
        OpenReply dir = Expect.done(create(c, "/d", NodeType.DIRECTORY));
        OpenReply x = Expect.done(create(c, "/d/x", NodeType.BAG));
        OpenReply d = Expect.done(c.call(Opcode.LOOKUP, new LookupRequest("/d", false), OpenReply::decode));
        assertEquals(DirectoryRecord.SIZE, d.node().length());
        assertNotNull(d.firstBlock(), "a container with records has a first block");
        assertEquals(new DirectoryRecord(NodeType.BAG, x.node().id(), "x"), MemoryBlocks.SHARED.record(d.firstBlock(), 0));
        Expect.done(c.call(Opcode.MOVE, new MoveRequest("/d/x", "/d/y"), OpenReply::decode)); // replies like a lookup
        assertEquals("y", MemoryBlocks.SHARED.record(d.firstBlock(), 1).name());
        assertEquals(null, MemoryBlocks.SHARED.record(d.firstBlock(), 0));
        Expect.done(c.call(Opcode.REMOVE, new RemoveRequest("/d", true), NodeReply::decode));
        assertEquals(dir.node().id(), d.node().id());
    }

    @Test
    void manyRequestsInFlightOnOneConnection() {
        RpcClient c = connect();
        register(c);
        Expect.done(create(c, "/bag", NodeType.BAG));
        List<CompletableFuture<OpenReply>> inFlight = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            inFlight.add(create(c, "/bag/part-" + i, NodeType.FILE));
        }
        Set<Long> ids = new HashSet<>();
        for (CompletableFuture<OpenReply> f : inFlight) {
            ids.add(Expect.done(f).node().id());
        }
        assertEquals(300, ids.size());
        assertEquals(302, server.nodeCount());
        OpenReply bag = Expect.done(c.call(Opcode.LOOKUP, new LookupRequest("/bag", false), OpenReply::decode));
        assertEquals(300L * DirectoryRecord.SIZE, bag.node().length());
    }

    @Test
    void aLeaseEndsWhenItsConnectionCloses() throws Exception {
        RpcClient writer = connect();
        register(writer);
        Expect.done(create(writer, "/f", NodeType.FILE));
        RpcClient other = connect();
        Expect.error(ErrorCode.LEASE_CONFLICT, () -> other.call(Opcode.LOOKUP, new LookupRequest("/f", true),
                OpenReply::decode));
        writer.close();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            try {
                OpenReply r = Expect.done(other.call(Opcode.LOOKUP, new LookupRequest("/f", true), OpenReply::decode));
                assertNotEquals(0, r.lease());
                return;
            } catch (AssertionError e) {
                if (System.nanoTime() > deadline) {
                    fail("the lease was not released within 5 s of the writer's connection closing: " + e.getMessage());
                }
                Thread.sleep(20);
            }
        }
    }

    @Test
    void registrationHeartbeatAndStatus() {
        RpcClient c = connect();
        int id = register(c);
        assertEquals(id, register(c), "re-registering with the same token keeps the id");
        assertTrue(Expect.done(c.call(Opcode.HEARTBEAT, new HeartbeatRequest(id, 42), HeartbeatReply::decode)).known());
        assertFalse(Expect.done(c.call(Opcode.HEARTBEAT, new HeartbeatRequest(id, 43), HeartbeatReply::decode)).known());
        assertFalse(Expect.done(c.call(Opcode.HEARTBEAT, new HeartbeatRequest(id + 9, 42), HeartbeatReply::decode))
                .known());
        Expect.done(create(c, "/f", NodeType.FILE));
        StatusReply s = Expect.done(c.call(Opcode.STATUS, Empty.INSTANCE, StatusReply::decode));
        assertEquals(2, s.nodeCount());
        assertEquals(List.of("dram", "disk"), s.storageClasses());
        ServerStatus st = s.servers().get(0);
        assertEquals("live", st.state());
        assertEquals(2, st.usedBlocks(), "the File's first block and the root's record block");
        assertEquals(998, st.freeBlocks());
        assertEquals(0, st.pendingBlocks());
        Expect.done(c.call(Opcode.REMOVE, new RemoveRequest("/f", false), NodeReply::decode));
        ServerStatus after = Expect.done(c.call(Opcode.STATUS, Empty.INSTANCE, StatusReply::decode)).servers().get(0);
        assertEquals(1, after.pendingBlocks(), "a removed File's block waits out the reuse delay");
    }

    @Test
    void dataPlaneRequestsAreAnsweredWithAnError() {
        RpcClient c = connect();
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> c.call(Opcode.BLOCK_READ, new BlockReadRequest(0, 1, 0, 10),
                b -> b), "storage server");
        assertEquals(1, Expect.done(c.call(Opcode.STATUS, Empty.INSTANCE, StatusReply::decode)).nodeCount());
    }

    @Test
    void garbageBytesCloseThatConnectionOnly() throws IOException {
        RpcClient bystander = connect();
        ByteBuffer frame = ByteBuffer.allocate(30).putInt(26).put((byte) 0xEE).put((byte) 0).putLong(1);
        while (frame.hasRemaining()) {
            frame.put((byte) 0x5A);
        }
        assertClosedAfterSending(frame.array());
        assertEquals(1, Expect.done(bystander.call(Opcode.STATUS, Empty.INSTANCE, StatusReply::decode)).nodeCount());
    }

    @Test
    void aTruncatedMessageClosesThatConnectionOnly() throws IOException {
        // A CREATE whose path claims 100 bytes but the frame ends after 3.
        ByteBuffer frame = ByteBuffer.allocate(4 + 10 + 2 + 3).putInt(10 + 2 + 3).put((byte) Opcode.CREATE.code())
                .put((byte) 0).putLong(7).putShort((short) 100).put(new byte[] {'/', 'a', 'b'});
        assertClosedAfterSending(frame.array());
        RpcClient next = connect();
        assertEquals(1, Expect.done(next.call(Opcode.STATUS, Empty.INSTANCE, StatusReply::decode)).nodeCount());
    }

    @Test
    void anOversizedLengthFieldClosesThatConnectionOnly() throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(4 + 10).putInt(Integer.MAX_VALUE).put((byte) Opcode.STATUS.code())
                .put((byte) 0).putLong(1);
        assertClosedAfterSending(frame.array());
        RpcClient next = connect();
        assertEquals(1, Expect.done(next.call(Opcode.STATUS, Empty.INSTANCE, StatusReply::decode)).nodeCount());
    }

    private void assertClosedAfterSending(byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            try {
                int r = in.read();
                assertEquals(-1, r, "the server should close the connection without replying");
            } catch (SocketTimeoutException e) {
                fail("the server kept the connection open after malformed input");
            } catch (IOException e) {
                // A reset instead of an orderly close: the connection is closed all the same.
                assertFalse(s.isClosed(), "the reset came from the server, not from this socket: " + e);
            }
        }
    }

    @Test
    void aStorageServerRefusingTheRecordWriteFailsTheCreateCleanly() {
        RpcClient c = connect();
        StorageServerInfo nowhere = fakeStorage("no-such-tier-transport", 10, 1);
        Expect.done(c.call(Opcode.REGISTER, new RegisterRequest(nowhere), RegisterReply::decode));
        // The server grants regions but serves no block writes: the record write is refused.
        CreelException e = Expect.error(ErrorCode.INVALID_ARGUMENT, () -> create(c, "/d", NodeType.DIRECTORY), "/d",
                "record");
        assertNotNull(e.getMessage());
        Expect.error(ErrorCode.NOT_FOUND, () -> c.call(Opcode.LOOKUP, new LookupRequest("/d", false), OpenReply::decode));
        assertEquals(1, server.nodeCount());
    }
}
