package io.creel.storage.rdma;

import io.creel.common.security.ClientAuthentication;
import io.creel.common.security.HandshakeFailure;
import io.creel.common.security.RpcSecurity;
import io.creel.common.security.SecurityKeys;
import io.creel.common.security.ServerAuthentication;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Admission to an RDMA listener with the cluster secret, decided in connection setup itself, before
 * any queue pair of the peer's is usable: the authentication handshake's messages
 * ({@link ClientAuthentication}, {@link ServerAuthentication}) travel as the private data of the
 * connection manager's messages, in two connects:
 * <pre>
 *   connect #1  (client)  HELLO (37 bytes)
 *   reject      (server)  CHALLENGE (37 bytes); the server keeps it {@link #CHALLENGE_LIFETIME_NANOS} for one use
 *   connect #2  (client)  'P', the first 16 bytes of the server's nonce (which challenge), PROOF (32): 49 bytes
 *   accept      (server)  ACCEPTED with the server's proof (33 bytes)
 *   reject      (server)  REFUSED with the reason (cut to 145 bytes of text), for every refusal
 * </pre>
 * A connect request that carries anything else, an unknown, used or expired challenge, or a wrong
 * proof is rejected with REFUSED and logged; the client's connect fails saying the listener's
 * reason. The limits are the connection manager's: 56 bytes of private data in a connect, 148 in a
 * reject, 196 in an accept (InfiniBand and RoCE).
 */
public final class ConnectionAdmission {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionAdmission.class);
    /** How long a challenge may be answered. */
    public static final long CHALLENGE_LIFETIME_NANOS = 30_000_000_000L;
    /** Challenges outstanding at most; more HELLOs are refused until some expire or are answered. */
    static final int MAX_CHALLENGES = 4096;
    static final byte PROOF_MARK = 'P';
    static final int CHALLENGE_ID = 16;
    static final int REJECT_MAX = 148;
    private static final int NONCE_AT = 5; // after the CHALLENGE's magic and version

    private ConnectionAdmission() {
    }

    /** What a listener answers a connect request with: accept or reject, with this private data. */
    public record Verdict(boolean accept, byte[] privateData) {
    }

    /** The outcome of one connect of a device: established (with the accept's private data) or rejected (with the reject's). */
    public record Setup(RdmaConnection connection, byte[] privateData) {
        /** A rejected connect. */
        public static Setup rejected(byte[] privateData) {
            return new Setup(null, privateData);
        }
    }

    /**
     * The listener's side: one per listener. Without a cluster secret it admits every connect
     * request except one that opens the handshake (refused, saying this listener does not
     * authenticate, so the client does not think it talks to a cluster member). Thread-safe.
     */
    public static final class Gate {
        private final RpcSecurity security;
        private final String name;
        private final LongSupplier clock;
        private final Map<ByteBuffer, Pending> challenges = new LinkedHashMap<>();

        private record Pending(ServerAuthentication auth, long expiresNanos) {
        }

        /**
         * @param name  the listener, for log lines and refusals ("rdma exporter at 10.0.2.15:4791")
         * @param clock {@link System#nanoTime()}, or a test's
         */
        public Gate(RpcSecurity security, String name, LongSupplier clock) {
            this.security = security;
            this.name = name;
            this.clock = clock;
        }

        /** Whether connect requests must prove the cluster secret. */
        public boolean authenticates() {
            return security.authenticates();
        }

        /** Decides a connect request from {@code peer} that carried {@code privateData} (null: none). */
        public synchronized Verdict admit(byte[] privateData, String peer) {
            ByteBuf in = Unpooled.wrappedBuffer(privateData == null ? new byte[0] : privateData);
            boolean hello = in.readableBytes() >= ServerAuthentication.HELLO_BYTES
                    && ServerAuthentication.opensHandshake(in);
            if (!security.authenticates()) {
                if (hello) {
                    return refuse(peer, "it opened the authentication handshake, but this listener has no cluster "
                            + "secret", name + " does not authenticate (no " + SecurityKeys.SECRET_FILE.name()
                            + " set there), so a client with a cluster secret does not use it");
                }
                return new Verdict(true, null);
            }
            try {
                if (hello) {
                    return challenge(in, peer);
                }
                if (in.readableBytes() >= 1 + CHALLENGE_ID + ServerAuthentication.PROOF_BYTES
                        && in.getByte(0) == PROOF_MARK) {
                    return check(in, peer);
                }
                return refuse(peer, "it connected without authenticating", name + " requires authentication: set "
                        + SecurityKeys.SECRET_FILE.name() + " to the cluster's secret file");
            } catch (HandshakeFailure e) {
                return refuse(peer, e.getMessage(), name + " refused the connection: " + e.getMessage());
            }
        }

        private Verdict challenge(ByteBuf hello, String peer) {
            long now = clock.getAsLong();
            expire(now);
            if (challenges.size() >= MAX_CHALLENGES) {
                return refuse(peer, MAX_CHALLENGES + " challenges are outstanding", name + " is busy: too many "
                        + "connections are authenticating; try again");
            }
            ServerAuthentication auth = security.serverAuthentication();
            ByteBuf challenge = auth.challenge(hello, ByteBufAllocator.DEFAULT);
            try {
                byte[] bytes = new byte[challenge.readableBytes()];
                challenge.readBytes(bytes);
                byte[] id = new byte[CHALLENGE_ID];
                System.arraycopy(bytes, NONCE_AT, id, 0, CHALLENGE_ID);
                challenges.put(ByteBuffer.wrap(id), new Pending(auth, now + CHALLENGE_LIFETIME_NANOS));
                return new Verdict(false, bytes);
            } finally {
                challenge.release();
            }
        }

        private Verdict check(ByteBuf in, String peer) {
            in.skipBytes(1);
            byte[] id = new byte[CHALLENGE_ID];
            in.readBytes(id);
            expire(clock.getAsLong());
            Pending p = challenges.remove(ByteBuffer.wrap(id)); // one use, whatever the outcome
            if (p == null) {
                return refuse(peer, "its proof answers no challenge outstanding (expired, used, or never made)",
                        name + " refused the connection: its challenge expired or was used already; connect again");
            }
            ByteBuf accepted = p.auth().accept(in, ByteBufAllocator.DEFAULT);
            try {
                byte[] bytes = new byte[accepted.readableBytes()];
                accepted.readBytes(bytes);
                LOG.debug("{}: {} authenticated", name, peer);
                return new Verdict(true, bytes);
            } finally {
                accepted.release();
            }
        }

        private void expire(long now) {
            for (Iterator<Pending> it = challenges.values().iterator(); it.hasNext(); ) {
                if (now - it.next().expiresNanos() > 0) {
                    it.remove();
                } else {
                    break; // kept in the order made, so the rest are younger
                }
            }
        }

        /** Challenges outstanding now. */
        public synchronized int outstanding() {
            return challenges.size();
        }

        private Verdict refuse(String peer, String why, String message) {
            LOG.warn("{}: refused RDMA connection from {}: {}", name, peer, why);
            ByteBuf r = ServerAuthentication.refusal(ByteBufAllocator.DEFAULT, cut(message));
            try {
                byte[] bytes = new byte[r.readableBytes()];
                r.readBytes(bytes);
                return new Verdict(false, bytes);
            } finally {
                r.release();
            }
        }

        private static String cut(String message) {
            byte[] b = message.getBytes(StandardCharsets.UTF_8);
            if (b.length <= REJECT_MAX - 3) {
                return message;
            }
            // Cut at a character boundary: the bytes must stay UTF-8.
            int n = REJECT_MAX - 3;
            while (n > 0 && (b[n] & 0xC0) == 0x80) {
                n--;
            }
            return new String(b, 0, n, StandardCharsets.UTF_8);
        }
    }

    /**
     * Connects to {@code peer} through {@code connectOnce} (one connection-manager connect carrying
     * the given private data, null for none): with {@code auth}, HELLO, then the PROOF once rejected
     * with a CHALLENGE, and the connection only once the accept proved the listener knows the secret
     * too; without, one plain connect. A rejection that says why (REFUSED) fails with that reason.
     */
    public static CompletableFuture<RdmaConnection> connect(InetSocketAddress peer, ClientAuthentication auth,
                                                            Function<byte[], CompletableFuture<Setup>> connectOnce) {
        if (auth == null) {
            return connectOnce.apply(null).thenApply(s -> {
                if (s.connection() == null) {
                    String why = refusal(s.privateData(), null);
                    if (why == null) {
                        throw new CompletionException(new RdmaException(RdmaException.Kind.UNREACHABLE, peer,
                                "connect to " + peer + " failed: the connection was rejected (nothing listens on port "
                                        + peer.getPort() + ", or the peer refused)"));
                    }
                    throw refused(peer, why);
                }
                return s.connection();
            });
        }
        byte[] hello = bytes(auth.hello(ByteBufAllocator.DEFAULT));
        return connectOnce.apply(hello).thenCompose(first -> {
            if (first.connection() != null) {
                first.connection().close();
                throw refused(peer, "the listener accepted the connection without checking the cluster secret "
                        + "(not an RDMA listener of this cluster?)");
            }
            ByteBuf challenge = Unpooled.wrappedBuffer(first.privateData() == null ? new byte[0] : first.privateData());
            byte[] second;
            try {
                if (!auth.challengeReadable(challenge)) {
                    throw new HandshakeFailure("the listener rejected the connection without a challenge");
                }
                byte[] id = new byte[CHALLENGE_ID];
                challenge.getBytes(challenge.readerIndex() + NONCE_AT, id);
                byte[] proof = bytes(auth.answerChallenge(challenge, ByteBufAllocator.DEFAULT));
                second = new byte[1 + CHALLENGE_ID + proof.length];
                second[0] = PROOF_MARK;
                System.arraycopy(id, 0, second, 1, CHALLENGE_ID);
                System.arraycopy(proof, 0, second, 1 + CHALLENGE_ID, proof.length);
            } catch (HandshakeFailure e) {
                throw refused(peer, e.getMessage());
            }
            return connectOnce.apply(second);
        }).thenApply(last -> {
            if (last.connection() == null) {
                throw refused(peer, refusal(last.privateData(), "the listener rejected the proof"));
            }
            ByteBuf verdict = Unpooled.wrappedBuffer(last.privateData() == null ? new byte[0] : last.privateData());
            try {
                if (!auth.verdictReadable(verdict)) {
                    throw new HandshakeFailure("the listener accepted without proving the cluster secret");
                }
                auth.readVerdict(verdict);
            } catch (HandshakeFailure e) {
                last.connection().close();
                throw refused(peer, e.getMessage());
            }
            return last.connection();
        });
    }

    private static String refusal(byte[] data, String otherwise) {
        if (data == null || data.length < 3 || data[0] != 1) {
            return otherwise;
        }
        int length = ((data[1] & 0xff) << 8) | (data[2] & 0xff);
        if (length > data.length - 3) {
            return otherwise;
        }
        return new String(data, 3, length, StandardCharsets.UTF_8);
    }

    private static CompletionException refused(InetSocketAddress peer, String why) {
        return new CompletionException(new RdmaException(RdmaException.Kind.REFUSED, peer, "connect to " + peer
                + " refused: " + why));
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            byte[] out = new byte[b.readableBytes()];
            b.readBytes(out);
            return out;
        } finally {
            b.release();
        }
    }
}
