package io.creel.storage.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.security.ClientAuthentication;
import io.creel.common.security.RpcSecurity;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.creel.storage.rdma.fake.FakeRdmaNetwork;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The listener's side of admission by the cluster secret, message by message: a challenge answers
 * one proof, once, within its lifetime; everything else is refused with a reason that fits a reject.
 * (Both sides over real connects: {@link RdmaDeviceContract}.)
 */
class ConnectionAdmissionTest {
    private final AtomicLong clock = new AtomicLong(1_000);

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }

    /** The client's second connect's private data, answering {@code challenge}. */
    private static byte[] proofMessage(ClientAuthentication auth, byte[] challenge) {
        byte[] proof = bytes(auth.answerChallenge(Unpooled.wrappedBuffer(challenge), ByteBufAllocator.DEFAULT));
        byte[] m = new byte[1 + ConnectionAdmission.CHALLENGE_ID + proof.length];
        m[0] = ConnectionAdmission.PROOF_MARK;
        System.arraycopy(challenge, 5, m, 1, ConnectionAdmission.CHALLENGE_ID);
        System.arraycopy(proof, 0, m, 1 + ConnectionAdmission.CHALLENGE_ID, proof.length);
        return m;
    }

    private static String refusal(ConnectionAdmission.Verdict v) {
        assertFalse(v.accept());
        byte[] d = v.privateData();
        assertEquals(1, d[0], "REFUSED");
        assertTrue(d.length <= ConnectionAdmission.REJECT_MAX, "fits a reject: " + d.length);
        return new String(d, 3, ((d[1] & 0xff) << 8) | (d[2] & 0xff), StandardCharsets.UTF_8);
    }

    @Test
    void aChallengeAdmitsOneProofOnceAndAReplayIsRefused() throws Exception {
        RpcSecurity cluster = RdmaDeviceContract.secret("the cluster's secret, 32 bytes long");
        ConnectionAdmission.Gate gate = new ConnectionAdmission.Gate(cluster, "exporter", clock::get);
        ClientAuthentication auth = cluster.clientAuthentication();
        ConnectionAdmission.Verdict challenge = gate.admit(bytes(auth.hello(ByteBufAllocator.DEFAULT)), "10.0.0.2");
        assertFalse(challenge.accept(), "the first connect is rejected, carrying the challenge");
        assertEquals(37, challenge.privateData().length);
        assertEquals(1, gate.outstanding());

        byte[] proof = proofMessage(auth, challenge.privateData());
        ConnectionAdmission.Verdict accepted = gate.admit(proof, "10.0.0.2");
        assertTrue(accepted.accept());
        auth.readVerdict(Unpooled.wrappedBuffer(accepted.privateData())); // the listener proved the secret too
        assertEquals(0, gate.outstanding());

        assertTrue(refusal(gate.admit(proof, "10.0.0.9")).contains("its challenge expired or was used already"));
    }

    @Test
    void aChallengeExpiresAfterItsLifetime() throws Exception {
        RpcSecurity cluster = RdmaDeviceContract.secret("the cluster's secret, 32 bytes long");
        ConnectionAdmission.Gate gate = new ConnectionAdmission.Gate(cluster, "exporter", clock::get);
        ClientAuthentication auth = cluster.clientAuthentication();
        byte[] challenge = gate.admit(bytes(auth.hello(ByteBufAllocator.DEFAULT)), "p").privateData();
        clock.addAndGet(ConnectionAdmission.CHALLENGE_LIFETIME_NANOS + 1);
        assertTrue(refusal(gate.admit(proofMessage(auth, challenge), "p")).contains("expired"));
        assertEquals(0, gate.outstanding());
    }

    @Test
    void outstandingChallengesAreBoundedSoHellosCannotFillMemory() throws Exception {
        RpcSecurity cluster = RdmaDeviceContract.secret("the cluster's secret, 32 bytes long");
        ConnectionAdmission.Gate gate = new ConnectionAdmission.Gate(cluster, "exporter", clock::get);
        byte[] hello = bytes(cluster.clientAuthentication().hello(ByteBufAllocator.DEFAULT));
        for (int i = 0; i < ConnectionAdmission.MAX_CHALLENGES; i++) {
            assertEquals(37, gate.admit(hello, "flood").privateData().length);
        }
        assertTrue(refusal(gate.admit(hello, "flood")).contains("too many connections are authenticating"));
        clock.addAndGet(ConnectionAdmission.CHALLENGE_LIFETIME_NANOS + 1);
        assertEquals(37, gate.admit(hello, "later").privateData().length, "expired ones make room");
        assertEquals(1, gate.outstanding());
    }

    @Test
    void connectRequestsWithoutAHandshakeOrWithGarbageAreRefusedWithReasonsThatFitAReject() throws Exception {
        RpcSecurity cluster = RdmaDeviceContract.secret("the cluster's secret, 32 bytes long");
        ConnectionAdmission.Gate longName = new ConnectionAdmission.Gate(cluster, "storage server 10.0.0.1:4711's "
                + "rdma exporter with a name long enough that its refusals must be cut, ünïcödé included", clock::get);
        String cut = refusal(longName.admit(null, "p")); // fits, cut at a character boundary
        assertTrue(cut.startsWith("storage server 10.0.0.1:4711's rdma exporter with a name") && !cut.contains("\uFFFD"),
                cut);
        ConnectionAdmission.Gate gate = new ConnectionAdmission.Gate(cluster, "exporter", clock::get);
        assertTrue(refusal(gate.admit(null, "p")).contains("requires authentication"));
        assertTrue(refusal(gate.admit(new byte[56], "p")).contains("requires authentication"), "IB's zero padding");
        byte[] badVersion = bytes(cluster.clientAuthentication().hello(ByteBufAllocator.DEFAULT));
        badVersion[4] = 9;
        refusal(gate.admit(badVersion, "p"));
        byte[] forged = new byte[49];
        forged[0] = ConnectionAdmission.PROOF_MARK;
        assertTrue(refusal(gate.admit(forged, "p")).contains("expired or was used"));
        assertEquals(0, gate.outstanding());

        ConnectionAdmission.Gate open = new ConnectionAdmission.Gate(RpcSecurity.none(), "open", clock::get);
        assertTrue(open.admit(null, "p").accept(), "without a secret everyone is admitted");
        assertTrue(refusal(open.admit(bytes(cluster.clientAuthentication().hello(ByteBufAllocator.DEFAULT)), "p"))
                .contains("open does not authenticate"));
    }

    private static RdmaException connectFailure(CompletableFuture<RdmaConnection> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
        RdmaException r = RdmaException.find(e);
        assertTrue(r != null, "an RdmaException: " + e);
        return r;
    }

    @Test
    void aClientTellsAListenersRefusalFromARejectThatSaysNothing() throws Exception {
        InetSocketAddress peer = new InetSocketAddress("10.0.0.1", 4791);
        RdmaException silent = connectFailure(ConnectionAdmission.connect(peer, null,
                data -> CompletableFuture.completedFuture(ConnectionAdmission.Setup.rejected(new byte[56]))));
        assertEquals(RdmaException.Kind.UNREACHABLE, silent.kind(), "zeroes: nothing listens, or a plain refusal");
        assertTrue(silent.getMessage().contains("nothing listens on port 4791"), silent.getMessage());

        byte[] refusal = bytes(io.creel.common.security.ServerAuthentication.refusal(ByteBufAllocator.DEFAULT,
                "exporter requires authentication"));
        RdmaException said = connectFailure(ConnectionAdmission.connect(peer, null,
                data -> CompletableFuture.completedFuture(ConnectionAdmission.Setup.rejected(refusal))));
        assertEquals(RdmaException.Kind.REFUSED, said.kind());
        assertEquals("connect to " + peer + " refused: exporter requires authentication", said.getMessage());
    }

    @Test
    void aClientWithTheSecretDoesNotTakeAConnectionTheListenerAcceptedWithoutAProof() throws Exception {
        InetSocketAddress peer = new InetSocketAddress("10.0.0.1", 4791);
        RpcSecurity cluster = RdmaDeviceContract.secret("the cluster's secret, 32 bytes long");
        try (FakeRdmaNetwork network = new FakeRdmaNetwork(clock::get)) {
            RdmaDevice server = network.open(peer.getAddress(), RdmaSettings.defaults());
            RdmaDevice client = network.open(java.net.InetAddress.getByName("10.0.0.2"), RdmaSettings.defaults());
            RdmaListener open = server.listen(peer.getPort());
            RdmaConnection plain = client.connect(open.localAddress()).get(10, TimeUnit.SECONDS);
            // A listener that accepts the HELLO itself: no challenge, so the client closes what it got.
            RdmaException e = connectFailure(ConnectionAdmission.connect(peer, cluster.clientAuthentication(),
                    data -> CompletableFuture.completedFuture(new ConnectionAdmission.Setup(plain, null))));
            assertEquals(RdmaException.Kind.REFUSED, e.kind());
            assertTrue(e.getMessage().contains("accepted the connection without checking the cluster secret"),
                    e.getMessage());
            assertFalse(plain.isOpen(), "the unproven connection was closed");
        }
    }
}
