package io.creel.common.protocol;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.creel.common.error.CreelException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.function.Function;

/**
 * Every message decoder given hostile bytes: a decoder either returns a message or rejects the
 * bytes with a {@link ProtocolException} (or another {@link CreelException}); any other exception —
 * an index out of bounds, an allocation of what a length field claims — is a finding. A decoded
 * message must encode and decode again to an equal message.
 */
class MessageDecodersFuzzTest {
    private static final List<Function<ByteBuf, ? extends Message>> DECODERS = List.of(
            AddressRequest::decode, BlockLocation::decode, BlockReadRequest::decode, BlockWriteHeader::decode,
            CommitRequest::decode, CreateRequest::decode, Empty::decode, FsckReply::decode, FsckRequest::decode,
            HeartbeatReply::decode, HeartbeatRequest::decode, LookupRequest::decode, MapReply::decode,
            MapRequest::decode, MoveRequest::decode, NodeInfo::decode, NodeReply::decode, OpenReply::decode,
            RegionGrantReply::decode, RegionGrantRequest::decode, RegionReleaseRequest::decode,
            RegionSyncRequest::decode, RegisterReply::decode, RegisterRequest::decode, RemoveRequest::decode,
            ServerStatus::decode, StatusReply::decode, StorageServerInfo::decode, LocateRequest::decode,
            LocateReply::decode, HandOverRequest::decode, SessionBeatReply::decode,
            SetAccessRequest::decode, CredentialRecord::decode, CredentialList::decode, NameRequest::decode,
            SyncManyRequest::decode, SyncManyReply::decode, ScanRequest::decode, ScanReply::decode);

    @FuzzTest(maxDuration = "15s")
    void decodersRejectHostileBytesWithAProtocolError(FuzzedDataProvider data) {
        Function<ByteBuf, ? extends Message> decoder = DECODERS.get(data.consumeInt(0, DECODERS.size() - 1));
        ByteBuf in = Unpooled.wrappedBuffer(data.consumeRemainingAsBytes());
        Message m;
        try {
            m = decoder.apply(in);
        } catch (CreelException rejected) {
            return; // ProtocolException is one: the connection is closed or the request answered with an error
        }
        ByteBuf again = Unpooled.buffer();
        m.encode(again);
        Message twice = decoder.apply(again);
        if (!String.valueOf(twice).equals(String.valueOf(m))) {
            throw new IllegalStateException("decoded " + m + " re-encodes to " + twice);
        }
    }
}
