package io.creel.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.namespace.NodeType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** Every message survives a round trip, and every truncation of it is a ProtocolException, never a crash. */
class MessageCodecTest {
    private static final StorageServerInfo SERVER = StorageServerInfo.of(7, "dram", "dram", "host-a", 40123,
            "machine-1", 1024, 1 << 20, 0x1234_5678_9abcL, Map.of("local.data.path", "/dev/shm/creel/r1",
                    "local.data.offset", "2097152", "rdma.port", "4791"));
    private static final NodeInfo NODE = new NodeInfo(42, NodeType.KEYVALUE, 12345, "dram", "host-a", true,
            1_700_000_000_000L, false);
    private static final BlockLocation BLOCK = new BlockLocation(42, 3, SERVER, 99, 1L << 50);

    private static <T extends Message> void roundTrip(T message, Function<ByteBuf, T> decode) {
        ByteBuf buf = Unpooled.buffer();
        message.encode(buf);
        byte[] bytes = new byte[buf.readableBytes()];
        buf.getBytes(0, bytes);
        assertEquals(message, decode.apply(buf), "round trip of " + message.getClass().getSimpleName());
        for (int cut = 0; cut < bytes.length; cut++) {
            ByteBuf truncated = Unpooled.wrappedBuffer(bytes, 0, cut);
            assertThrows(ProtocolException.class, () -> decode.apply(truncated),
                    message.getClass().getSimpleName() + " truncated to " + cut + " bytes");
        }
    }

    @Test
    void aScanAsksForOneToMaxLimitKeysAndItsReplyHoldsOnlyKeyValuesWithTheirOwnLength() {
        assertThrows(IllegalArgumentException.class, () -> new ScanRequest("/t", "", false, 0));
        assertThrows(IllegalArgumentException.class, () -> new ScanRequest("/t", "", false, ScanRequest.MAX_LIMIT + 1));
        ByteBuf tooMany = Unpooled.buffer();
        new ScanRequest("/t", "", false, 5).encode(tooMany);
        tooMany.setShort(tooMany.writerIndex() - 2, ScanRequest.MAX_LIMIT + 1);
        assertThrows(ProtocolException.class, () -> ScanRequest.decode(tooMany));
        ByteBuf directory = Unpooled.buffer();
        new ScanReply(List.of(new ScanReply.Entry("d", new NodeInfo(1, NodeType.DIRECTORY, 0, "", "", true, 0, false),
                null)), false).encode(directory);
        assertThrows(ProtocolException.class, () -> ScanReply.decode(directory));
        ByteBuf shortValue = Unpooled.buffer();
        new ScanReply(List.of(new ScanReply.Entry("k", NODE, new byte[] {1})), false).encode(shortValue);
        assertThrows(ProtocolException.class, () -> ScanReply.decode(shortValue));
    }

    @Test
    void metadataMessagesRoundTrip() {
        roundTrip(new CreateRequest("/a/b", NodeType.FILE, "disk", "", false), CreateRequest::decode);
        roundTrip(new CreateRequest("/a/r", NodeType.FILE, "", "", true, null, 3), CreateRequest::decode);
        roundTrip(new OpenReply(NODE, 77, BLOCK), OpenReply::decode);
        roundTrip(new OpenReply(NODE, 0, null), OpenReply::decode);
        roundTrip(new LookupRequest("/x/日本", true), LookupRequest::decode);
        roundTrip(new RemoveRequest("/x", true), RemoveRequest::decode);
        roundTrip(new MoveRequest("/x", "/y"), MoveRequest::decode);
        roundTrip(new NodeReply(NODE), NodeReply::decode);
        NodeInfo expiring = NODE.withExpiry(new NodeExpiry("00000000000000ff0000000000000001", true, 30_000, 1200));
        roundTrip(new NodeReply(expiring), NodeReply::decode);
        roundTrip(new OpenReply(expiring, 0, null), OpenReply::decode);
        NodeInfo small = new NodeInfo(9, NodeType.FILE, 70_000, "", "", true, 5, false, 0, null, 64 << 10);
        roundTrip(new OpenReply(small, 77, BLOCK), OpenReply::decode);
        assertEquals(new io.creel.common.namespace.BlockLayout(64 << 10, 1 << 20), small.layout(1 << 20));
        assertEquals(io.creel.common.namespace.BlockLayout.uniform(1 << 20), NODE.layout(1 << 20));
        roundTrip(new CreateRequest("/a/v", NodeType.KEYVALUE, "", "", true).withSizeHint(16 << 10),
                CreateRequest::decode);
        roundTrip(new CreateRequest("/app", NodeType.DIRECTORY, "", "", true, null, Expiry.SESSION),
                CreateRequest::decode);
        roundTrip(new CreateRequest("/app", NodeType.DIRECTORY, "", "", true, null,
                Expiry.timeToLive(java.time.Duration.ofMinutes(10))), CreateRequest::decode);
        roundTrip(new HandOverRequest("/app", "00000000000000ff0000000000000001", Expiry.SESSION),
                HandOverRequest::decode);
        roundTrip(new HandOverRequest("/app", "", Expiry.NONE), HandOverRequest::decode);
        roundTrip(new SessionBeatReply(3, 30_000), SessionBeatReply::decode);
        roundTrip(new CreateRequest("/t", NodeType.TABLE, "", "", false, null, 0, Expiry.NONE, true),
                CreateRequest::decode);
        roundTrip(new ScanRequest("/t", "", false, 1), ScanRequest::decode);
        roundTrip(new ScanRequest("/t", "user42", true, ScanRequest.MAX_LIMIT), ScanRequest::decode);
        roundTrip(new ScanReply(List.of(), false), ScanReply::decode);
        roundTrip(new ScanReply(List.of(new ScanReply.Entry("k1", NODE, null),
                new ScanReply.Entry("k2", new NodeInfo(43, NodeType.KEYVALUE, 3, "", "", true, 5, false), new byte[] {1, 2, 3})),
                true), ScanReply::decode);
        roundTrip(new MapRequest(42, 5, 77), MapRequest::decode);
        roundTrip(new MapRequest(42, 5, 77, 1L << 52, 3), MapRequest::decode);
        roundTrip(new LocateRequest(42, 5, 64), LocateRequest::decode);
        roundTrip(new LocateReply(java.util.List.of(BLOCK, new BlockLocation(42, 4, SERVER, 100, 1L << 50))),
                LocateReply::decode);
        roundTrip(new MapReply(BLOCK), MapReply::decode);
        roundTrip(new MapReply(new BlockLocation(42, 4, SERVER, 100, 1L << 50, java.util.List.of(
                new BlockCopy(SERVER.withServerId(8), 7, 1L << 51), new BlockCopy(SERVER.withServerId(9), 9, 1L << 50)))),
                MapReply::decode);
        roundTrip(CommitRequest.sync(42, 77, 4096), CommitRequest::decode);
        roundTrip(CommitRequest.close(42, 77, 4096), CommitRequest::decode);
        roundTrip(CommitRequest.abandon(42, 77), CommitRequest::decode);
        roundTrip(new CreateRequest("/s/part-0/e1-0", NodeType.FILE, "", "", true, null, 0, Expiry.NONE, false, true),
                CreateRequest::decode);
        roundTrip(new SyncManyRequest(java.util.List.of(new SyncManyRequest.Entry(42, 77, 4096, null),
                new SyncManyRequest.Entry(43, 78, 10, new byte[] {1, 2, 3}))), SyncManyRequest::decode);
        roundTrip(new SyncManyReply(java.util.List.of(SyncManyReply.Result.applied(4096),
                SyncManyReply.Result.failed(new io.creel.common.error.CreelException(
                        io.creel.common.error.ErrorCode.LEASE_CONFLICT, "/a: not yours")))), SyncManyReply::decode);
        roundTrip(new RegisterRequest(SERVER.withServerId(0)), RegisterRequest::decode);
        roundTrip(new RegisterReply(7, 0x55aa), RegisterReply::decode);
        roundTrip(new RegionGrantRequest(9, 3), RegionGrantRequest::decode);
        roundTrip(new RegionReleaseRequest(9, 12), RegionReleaseRequest::decode);
        roundTrip(new RegionSyncRequest(9, List.of(1, 5, 7)), RegionSyncRequest::decode);
        roundTrip(new RegionGrantReply(64, List.of(new RegionGrantReply.Grant(3, 1L << 45)), false),
                RegionGrantReply::decode);
        roundTrip(new HeartbeatRequest(7, 99), HeartbeatRequest::decode);
        roundTrip(new HeartbeatReply(true, false), HeartbeatReply::decode);
        roundTrip(new AddressRequest("host-a:4000"), AddressRequest::decode);
        roundTrip(new FsckRequest("/jobs"), FsckRequest::decode);
        roundTrip(new FsckReply(12, List.of(new FsckReply.Damaged("/jobs/a", 2, 5, List.of("h:1 (dead)")))),
                FsckReply::decode);
        roundTrip(new FsckReply(3, List.of(), List.of(new FsckReply.Records("/jobs", 40, "h:1 (dead)", "h:2", 3100),
                new FsckReply.Records("/tmp", 2, "h:1 (dead)", "", 900))), FsckReply::decode);
        roundTrip(new StatusReply(10, List.of("dram", "disk"),
                List.of(new ServerStatus(SERVER, "live", 1, 2, 3, 4))), StatusReply::decode);
    }

    @Test
    void inlineDataRoundTripsWithTheMessagesThatCarryIt() {
        byte[] value = "a small value".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        roundTrip(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, value), CreateRequest::decode);
        roundTrip(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, new byte[0]), CreateRequest::decode);
        NodeInfo small = new NodeInfo(43, NodeType.KEYVALUE, value.length, "", "", true, 1_700_000_000_000L, false);
        roundTrip(new OpenReply(small, 0, null, value, 4096), OpenReply::decode);
        roundTrip(new OpenReply(NODE, 77, BLOCK, null, 4096), OpenReply::decode);
        roundTrip(CommitRequest.inline(42, 77, value, true), CommitRequest::decode);
        roundTrip(CommitRequest.inline(42, 77, new byte[0], false), CommitRequest::decode);
        assertEquals(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, value.clone()),
                new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, value), "values compare by content");
        assertTrue(!new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, value)
                .equals(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true)), "a value is not its absence");
    }

    @Test
    void inlineDataThatDisagreesWithItsLengthOrIsTooLongIsRejected() {
        byte[] value = new byte[10];
        ByteBuf wrongLength = Unpooled.buffer();
        new OpenReply(new NodeInfo(1, NodeType.FILE, 11, "", "", true, 0, false), 0, null, null, 0)
                .encode(wrongLength);
        wrongLength.writerIndex(wrongLength.writerIndex() - 8); // replace "no data, limit 0"
        Wire.writeOptionalBytes(wrongLength, value);
        wrongLength.writeInt(4096);
        assertThrows(ProtocolException.class, () -> OpenReply.decode(wrongLength), "10 bytes for a node of 11");

        ByteBuf commit = Unpooled.buffer();
        CommitRequest.inline(1, 2, value, true).encode(commit);
        commit.setLong(16, 9); // length no longer matches the data
        assertThrows(ProtocolException.class, () -> CommitRequest.decode(commit));

        ByteBuf huge = Unpooled.buffer();
        new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true).encode(huge);
        // the value's length, before the replication, the expiry, the flags and the size hint
        huge.setInt(huge.writerIndex() - 21, Wire.MAX_INLINE_BYTES + 1);
        assertThrows(ProtocolException.class, () -> CreateRequest.decode(huge));

        assertThrows(IllegalArgumentException.class, () -> new CommitRequest(1, 2, 3, CommitRequest.Kind.CLOSE, value));
        assertThrows(IllegalArgumentException.class,
                () -> new CreateRequest("/t/k", NodeType.KEYVALUE, "", "", true, new byte[Wire.MAX_INLINE_BYTES + 1])
                        .encode(Unpooled.buffer()));
    }

    @Test
    void dataPlaneMessagesRoundTrip() {
        roundTrip(new BlockReadRequest(9, 1L << 40, 100, 200), BlockReadRequest::decode);
        ByteBuf buf = Unpooled.buffer();
        new BlockWriteHeader(9, 5, 17).encode(buf);
        buf.writeBytes(new byte[] {1, 2, 3});
        assertEquals(new BlockWriteHeader(9, 5, 17), BlockWriteHeader.decode(buf));
        assertEquals(3, buf.readableBytes(), "the payload is left for the medium");
    }

    @Test
    void hostileFieldsAreRejected() {
        ByteBuf negativeLength = Unpooled.buffer();
        CommitRequest.sync(1, 1, 0).encode(negativeLength);
        negativeLength.setLong(16, -5);
        assertThrows(ProtocolException.class, () -> CommitRequest.decode(negativeLength));

        ByteBuf unknownKind = Unpooled.buffer();
        CommitRequest.close(1, 1, 0).encode(unknownKind);
        unknownKind.setByte(24, 3);
        assertThrows(ProtocolException.class, () -> CommitRequest.decode(unknownKind));

        ByteBuf badType = Unpooled.buffer();
        new CreateRequest("/a", NodeType.FILE, "", "", false).encode(badType);
        badType.setByte(2 + 2, 99); // after the 2-byte length and "/a"
        assertThrows(ProtocolException.class, () -> CreateRequest.decode(badType));

        ByteBuf moveWithoutLease = Unpooled.buffer();
        new MapRequest(1, 0, 0, 99, 0).encode(moveWithoutLease);
        assertThrows(ProtocolException.class, () -> MapRequest.decode(moveWithoutLease));

        for (int count : new int[] {0, LocateRequest.MAX_COUNT + 1}) {
            ByteBuf badCount = Unpooled.buffer();
            new LocateRequest(1, 0, count).encode(badCount);
            assertThrows(ProtocolException.class, () -> LocateRequest.decode(badCount), "count " + count);
        }
        ByteBuf notARun = Unpooled.buffer();
        notARun.writeShort(2);
        BLOCK.encode(notARun);
        BLOCK.encode(notARun); // the same block twice, not block 3 then 4
        assertThrows(ProtocolException.class, () -> LocateReply.decode(notARun));
        ByteBuf noBlocks = Unpooled.buffer().writeShort(0);
        assertThrows(ProtocolException.class, () -> LocateReply.decode(noBlocks));

        ByteBuf unknownFlags = Unpooled.buffer();
        new CreateRequest("/a", NodeType.FILE, "", "", true).encode(unknownFlags);
        unknownFlags.setByte(unknownFlags.writerIndex() - 9, 4); // the flags, before the size hint
        assertThrows(ProtocolException.class, () -> CreateRequest.decode(unknownFlags));

        ByteBuf tooManyEntries = Unpooled.buffer().writeInt(SyncManyRequest.MAX_ENTRIES + 1);
        assertThrows(ProtocolException.class, () -> SyncManyRequest.decode(tooManyEntries));
        ByteBuf countBeyondFrame = Unpooled.buffer().writeInt(1000).writeLong(1);
        assertThrows(ProtocolException.class, () -> SyncManyRequest.decode(countBeyondFrame),
                "a count the frame cannot hold is refused before allocating for it");
        ByteBuf appendedPastLength = Unpooled.buffer().writeInt(1).writeLong(1).writeLong(2).writeLong(1)
                .writeInt(2).writeShort(0);
        assertThrows(ProtocolException.class, () -> SyncManyRequest.decode(appendedPastLength));

        ByteBuf trailing = Unpooled.buffer();
        new RemoveRequest("/a", false).encode(trailing);
        trailing.writeByte(0);
        assertThrows(ProtocolException.class, () -> RemoveRequest.decode(trailing));

        ByteBuf hugeString = Unpooled.buffer();
        hugeString.writeShort(60000);
        assertThrows(ProtocolException.class, () -> LookupRequest.decode(hugeString));
    }

    @Test
    void aServerDescriptionCarriesItsAttributesAndRefusesHostileCounts() {
        ByteBuf b = Unpooled.buffer();
        SERVER.encode(b);
        StorageServerInfo back = StorageServerInfo.decode(b);
        assertEquals(SERVER, back);
        assertEquals("4791", back.attribute("rdma.port"));
        assertEquals("", back.attribute("nvmf.nqn"), "an attribute the server lacks reads as empty");

        ByteBuf tooMany = Unpooled.buffer();
        StorageServerInfo.of(1, "dram", "dram", "h", 1, "m", 1, 4096, 1, Map.of()).encode(tooMany);
        tooMany.setShort(tooMany.writerIndex() - 2, StorageServerInfo.MAX_ATTRIBUTES + 1);
        ProtocolException e = assertThrows(ProtocolException.class, () -> StorageServerInfo.decode(tooMany));
        assertTrue(e.getMessage().contains("server.attributes"), e.getMessage());

        ByteBuf twice = Unpooled.buffer();
        StorageServerInfo.of(1, "dram", "dram", "h", 1, "m", 1, 4096, 1, Map.of()).encode(twice);
        twice.setShort(twice.writerIndex() - 2, 2);
        Wire.writeString(twice, "a");
        Wire.writeString(twice, "1");
        Wire.writeString(twice, "a");
        Wire.writeString(twice, "2");
        assertThrows(ProtocolException.class, () -> StorageServerInfo.decode(twice));
    }

    @Test
    void expiriesAndSessionIdsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> Expiry.timeToLive(java.time.Duration.ofSeconds(-1)));
        assertThrows(IllegalArgumentException.class, () -> Expiry.timeToLive(java.time.Duration.ZERO));
        ByteBuf negative = Unpooled.buffer().writeLong(-5);
        assertThrows(ProtocolException.class, () -> Expiry.decode(negative, "create.expiry"));
        RequestIdentity client = RequestIdentity.newClient().withSequence(9);
        RequestIdentity parsed = RequestIdentity.parseClient(client.clientText());
        assertTrue(parsed.sameClient(client));
        assertThrows(IllegalArgumentException.class, () -> RequestIdentity.parseClient("xyz"));
        assertThrows(IllegalArgumentException.class, () -> RequestIdentity.parseClient("g".repeat(32)));
    }
}
