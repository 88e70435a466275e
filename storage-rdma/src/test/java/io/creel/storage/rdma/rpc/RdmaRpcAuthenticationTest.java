package io.creel.storage.rdma.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.Wire;
import io.creel.common.rpc.Frames;
import io.creel.common.rpc.RequestHandler;
import io.creel.common.rpc.RpcCall;
import io.creel.common.rpc.RpcTransport;
import io.creel.common.security.ClientAuthentication;
import io.creel.common.security.RpcSecurity;
import io.creel.common.security.SecurityKeys;
import io.creel.storage.rdma.fake.FakeRdmaNetwork;
import io.creel.storage.rdma.tier.RdmaFabric;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Cluster-secret authentication of rdma:// connections, both ends without DaRPC: the client's
 * handshake ({@link RdmaClientHandshake}) talks to the server's session ({@link RpcSession}) through
 * messages handled as DaRPC hands them over (whole message buffers, whatever arrived). Nothing is
 * dispatched before the client has proven the secret; every way it can fail is one UNAUTHENTICATED
 * error on the client and one logged refusal, then a dropped session, on the server.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RdmaRpcAuthenticationTest {
    private static final int CAPACITY = 4096;
    private static final HostPort SERVER = HostPort.parse("rdma://10.0.2.15:9060");

    @TempDir
    Path dir;
    private final List<RpcCall> served = new CopyOnWriteArrayList<>();
    private final CompletableFuture<String> dropped = new CompletableFuture<>();

    /** A message and its answer, as they cross DaRPC: the receiver sees its whole message buffer. */
    private static final class Exchange implements RpcSession.Exchange {
        final FrameMessage request = new FrameMessage(CAPACITY);
        final FrameMessage reply = new FrameMessage(CAPACITY);
        final CompletableFuture<FrameMessage> answered = new CompletableFuture<>();

        Exchange(ByteBuf message) {
            FrameMessage sent = new FrameMessage(CAPACITY);
            sent.set(message);
            request.update(wire(sent));
        }

        private static ByteBuffer wire(FrameMessage m) {
            ByteBuffer b = ByteBuffer.allocate(CAPACITY);
            b.put(new byte[CAPACITY / 2]).clear(); // what an earlier message left behind is there too
            m.write(b);
            return b.clear();
        }

        @Override
        public FrameMessage request() {
            return request;
        }

        @Override
        public FrameMessage reply() {
            return reply;
        }

        @Override
        public void send() {
            FrameMessage received = new FrameMessage(CAPACITY);
            received.update(wire(reply));
            answered.complete(received);
        }
    }

    private Path secretFile(String name, String secret) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, secret + "\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    private Path secret() throws IOException {
        return secretFile("secret", "correct horse battery staple");
    }

    private static RpcSecurity security(Path secret, String handshakeTimeout) {
        return RpcSecurity.of(CreelConf.of(Map.of(SecurityKeys.SECRET_FILE.name(), secret.toString(),
                SecurityKeys.HANDSHAKE_TIMEOUT.name(), handshakeTimeout)));
    }

    /** A namenode's session whose handler answers LOOKUP with the path. */
    private RpcSession session(RpcSecurity security) {
        RequestHandler lookups = call -> {
            served.add(call);
            call.reply(new LookupRequest(LookupRequest.decode(call.body()).path(), false));
        };
        return new RpcSession("namenode", SERVER.toString(), "/10.0.2.16:4711", lookups, CAPACITY, security,
                why -> dropped.complete(String.valueOf(why)));
    }

    /** The client's messages go to {@code session}; its answers come back (null: none before the deadline). */
    private static RdmaClientHandshake.Carrier carrier(RpcSession session) {
        return (message, deadline) -> {
            Exchange e = new Exchange(message.retainedDuplicate());
            session.received(e);
            try {
                long left = Math.max(1, deadline - System.nanoTime());
                return e.answered.get(left, TimeUnit.NANOSECONDS).raw();
            } catch (TimeoutException t) {
                return null;
            } catch (InterruptedException | ExecutionException x) {
                throw new IOException(x);
            }
        };
    }

    private static void authenticate(RpcSession session, RpcSecurity client) {
        RdmaClientHandshake.run(SERVER, client.clientAuthentication(), client.handshakeTimeout(), carrier(session));
    }

    private static ByteBuf lookup(long id, String path) {
        return Frames.request(ByteBufAllocator.DEFAULT, Opcode.LOOKUP, id, new LookupRequest(path, false));
    }

    /** Sends a request frame and returns its reply's status and body. */
    private static ByteBuf call(RpcSession session, long id, String path) throws Exception {
        Exchange e = new Exchange(lookup(id, path));
        session.received(e);
        ByteBuf reply = e.answered.get(10, TimeUnit.SECONDS).frameAfterLength();
        reply.readUnsignedByte();
        assertEquals(Frame.FLAG_RESPONSE | Frame.versionFlags(), reply.readUnsignedByte());
        assertEquals(id, reply.readLong(), "the reply names its request");
        return reply;
    }

    private String droppedBecause() throws Exception {
        return dropped.get(10, TimeUnit.SECONDS);
    }

    @Test
    void aClientWithTheSecretAuthenticatesAndIsThenServedLikeAnyOther() throws Exception {
        RpcSession s = session(security(secret(), "10s"));
        assertFalse(s.authenticated());
        authenticate(s, security(secret(), "10s"));
        assertTrue(s.authenticated());
        for (int i = 1; i <= 20; i++) {
            ByteBuf r = call(s, i, "/file-" + i);
            assertEquals(Frame.STATUS_OK, r.readUnsignedShort());
            assertEquals("/file-" + i, LookupRequest.decode(r).path());
        }
        assertEquals(20, served.size());
        assertFalse(dropped.isDone());
    }

    @Test
    void aRequestBeforeTheHandshakeIsAnsweredUnauthenticatedAndNeverServed() throws Exception {
        RpcSession s = session(security(secret(), "10s"));
        ByteBuf r = call(s, 7, "/secret-data");
        assertEquals(ErrorCode.UNAUTHENTICATED.code(), r.readUnsignedShort());
        String message = Wire.readString(r, "message");
        assertTrue(message.contains("namenode at rdma://10.0.2.15:9060 requires authentication: set "
                + SecurityKeys.SECRET_FILE.name()), message);
        // Whatever it sends next is not served either, and the session is dropped.
        Exchange next = new Exchange(lookup(8, "/more"));
        s.received(next);
        assertEquals("refused: it sent a request without authenticating", droppedBecause());
        assertTrue(served.isEmpty(), "nothing reached the handler");
        assertFalse(next.answered.isDone());
        assertFalse(s.authenticated());
    }

    @Test
    void aClientWithAnotherSecretIsRefusedWithTheServersReason() throws Exception {
        RpcSession s = session(security(secret(), "10s"));
        CreelException e = assertThrows(CreelException.class,
                () -> authenticate(s, security(secretFile("other", "incorrect horse battery staple"), "10s")));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertEquals("cannot authenticate to rdma://10.0.2.15:9060: namenode refused the connection: its proof of "
                + "the cluster secret is wrong (a different secret?)", e.getMessage());
        assertTrue(droppedBecause().contains("its proof of the cluster secret is wrong"));
        assertTrue(served.isEmpty());
    }

    @Test
    void aClientWithASecretAndAServerWithoutOneBothSaySo() throws Exception {
        RpcSession s = session(RpcSecurity.none());
        CreelException e = assertThrows(CreelException.class, () -> authenticate(s, security(secret(), "10s")));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertTrue(e.getMessage().startsWith("cannot authenticate to rdma://10.0.2.15:9060: namenode at "
                + "rdma://10.0.2.15:9060 does not authenticate (no " + SecurityKeys.SECRET_FILE.name() + " set there)"),
                e.getMessage());
        assertEquals("refused: it opened the authentication handshake, but this server has no cluster secret",
                droppedBecause());
    }

    @Test
    void aServerWithoutASecretStillServesClientsWithout() throws Exception {
        RpcSession s = session(RpcSecurity.none());
        assertTrue(s.authenticated());
        assertEquals(Frame.STATUS_OK, call(s, 1, "/a").readUnsignedShort());
    }

    @Test
    void aClientThatDoesNotAuthenticateInTimeIsDropped() throws Exception {
        RpcSession s = session(security(secret(), "200ms"));
        assertEquals("did not authenticate within 200 ms", droppedBecause());
        // A HELLO that comes after is not answered.
        Exchange late = new Exchange(security(secret(), "10s").clientAuthentication().hello(ByteBufAllocator.DEFAULT));
        s.received(late);
        assertFalse(late.answered.isDone());
    }

    @Test
    void aClientThatGetsNoAnswerGivesUpAfterItsHandshakeTimeout() throws Exception {
        RpcSecurity client = security(secret(), "100ms");
        CreelException e = assertThrows(CreelException.class, () -> RdmaClientHandshake.run(SERVER,
                client.clientAuthentication(), client.handshakeTimeout(), (message, deadline) -> {
                    while (System.nanoTime() - deadline < 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                    }
                    return null; // the deadline passed: what a silent server looks like
                }));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertEquals("cannot authenticate to rdma://10.0.2.15:9060: no answer to the authentication handshake within "
                + "100 ms", e.getMessage());
    }

    @Test
    void aServerThatHangsUpDuringTheHandshakeIsOneClearError() throws Exception {
        RpcSecurity client = security(secret(), "10s");
        CreelException e = assertThrows(CreelException.class, () -> RdmaClientHandshake.run(SERVER,
                client.clientAuthentication(), client.handshakeTimeout(), (message, deadline) -> {
                    throw new IOException("the server closed the connection during the authentication handshake");
                }));
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
        assertTrue(e.getMessage().contains("the server closed the connection during the authentication handshake (is "
                + "authentication on there"), e.getMessage());
    }

    @Test
    void aRequestInPlaceOfTheProofIsRefused() throws Exception {
        RpcSession s = session(security(secret(), "10s"));
        ClientAuthentication auth = security(secret(), "10s").clientAuthentication();
        Exchange hello = new Exchange(auth.hello(ByteBufAllocator.DEFAULT));
        s.received(hello);
        assertTrue(auth.challengeReadable(hello.answered.get(10, TimeUnit.SECONDS).raw()), "a CHALLENGE");
        Exchange request = new Exchange(lookup(1, "/x"));
        s.received(request);
        ByteBuf answer = request.answered.get(10, TimeUnit.SECONDS).raw();
        assertEquals(1, answer.readUnsignedByte(), "REFUSED");
        assertTrue(droppedBecause().contains("its proof of the cluster secret is wrong"));
        assertTrue(served.isEmpty());
    }

    @Test
    void garbageInPlaceOfAHelloIsRefused() throws Exception {
        RpcSession s = session(security(secret(), "10s"));
        Exchange e = new Exchange(Unpooled.copiedBuffer("GET / HTTP/1.1\r\n\r\n", StandardCharsets.US_ASCII));
        s.received(e);
        ByteBuf answer = e.answered.get(10, TimeUnit.SECONDS).raw();
        assertEquals(1, answer.readUnsignedByte(), "REFUSED");
        assertTrue(droppedBecause().contains("it sent a request without authenticating"));
    }

    @Test
    void noSequenceOfMessagesWithoutTheSecretGetsAnythingServed() throws Exception {
        Random random = new Random(20261123);
        ClientAuthentication someone = security(secret(), "10s").clientAuthentication();
        byte[] hello = new byte[37];
        someone.hello(ByteBufAllocator.DEFAULT).readBytes(hello);
        for (int round = 0; round < 300; round++) {
            RpcSession s = session(security(secret(), "10s"));
            for (int m = 0; m < 4; m++) {
                ByteBuf message = switch (random.nextInt(4)) {
                    case 0 -> Unpooled.wrappedBuffer(hello.clone()); // a genuine HELLO, then guesses
                    case 1 -> lookup(random.nextInt(100), "/x");
                    default -> {
                        byte[] b = new byte[random.nextInt(80)];
                        random.nextBytes(b);
                        if (b.length >= 5 && random.nextBoolean()) {
                            System.arraycopy(hello, 0, b, 0, 5); // the magic and version, then noise
                        }
                        yield Unpooled.wrappedBuffer(b);
                    }
                };
                s.received(new Exchange(message));
            }
            assertFalse(s.authenticated(), "round " + round);
            s.drop(null);
        }
        assertTrue(served.isEmpty(), "nothing reached the handler");
    }

    @Test
    void tlsCannotBeCarriedSoRdmaRefusesToStartWithItNamingTheKeys() throws Exception {
        CreelConf tls = CreelConf.of(Map.of(SecurityKeys.TLS_ENABLED.name(), "true",
                SecurityKeys.SECRET_FILE.name(), secret().toString()));
        RdmaRpcTransport t = new RdmaRpcTransport(new RdmaFabric(new FakeRdmaNetwork(), () -> null));
        RpcTransport.Context context = new RpcTransport.Context(tls, null, 1 << 20, Duration.ofSeconds(5),
                Duration.ofSeconds(5));
        CreelException l = assertThrows(CreelException.class, () -> t.listen("namenode", "10.0.2.15", 9060,
                call -> { }, context));
        assertEquals(ErrorCode.CONFIGURATION, l.code());
        assertTrue(l.getMessage().contains("rdma:// cannot be used with creel.security.tls.enabled=true: RDMA has no "
                + "TLS") && l.getMessage().contains("creel.namenode.address"), l.getMessage());
        ExecutionException c = assertThrows(ExecutionException.class, () -> t.connect(SERVER, context)
                .get(10, TimeUnit.SECONDS));
        assertEquals(ErrorCode.CONFIGURATION, ((CreelException) c.getCause()).code());
    }
}
