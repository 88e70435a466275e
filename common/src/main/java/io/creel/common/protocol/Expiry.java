package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.time.Duration;

/**
 * When a node goes away by itself: never ({@link #NONE}), or once its owner — the client that
 * created it, or the one it was handed to — has not been heard for a while. The owner renews
 * implicitly: its client heartbeats every namenode where it owns such a node. A removed node takes
 * everything below it along, and its blocks are freed.
 *
 * <p>The while is the namenode's {@code creel.namenode.session.timeout} for a node bound to its
 * owner's session ({@link #SESSION}), or the node's own time to live ({@link #timeToLive}). A time
 * to live is thus counted from the owner's last heartbeat, not from the create: a live owner's node
 * never expires, and a longer one keeps data a while after a job's end (a benchmark's load phase,
 * read by its run phase).
 *
 * @param graceMillis 0: never expires; -1: the namenode's session timeout; else the time to live in
 *                    milliseconds (positive)
 */
public record Expiry(long graceMillis) {
    /** Never expires (every node created without an expiry). */
    public static final Expiry NONE = new Expiry(0);
    /** Expires {@code creel.namenode.session.timeout} after its owner was last heard. */
    public static final Expiry SESSION = new Expiry(-1);

    public Expiry {
        if (graceMillis < -1) {
            throw new IllegalArgumentException("a time to live must be positive: " + graceMillis + " ms");
        }
    }

    /** Bound to the owner's session: removed the namenode's session timeout after its owner stops. */
    public static Expiry session() {
        return SESSION;
    }

    /**
     * Removed {@code ttl} after its owner was last heard.
     *
     * @throws IllegalArgumentException for a time to live that is zero or negative, or shorter than a millisecond
     */
    public static Expiry timeToLive(Duration ttl) {
        if (ttl.isNegative() || ttl.isZero() || ttl.toMillis() == 0) {
            throw new IllegalArgumentException("a time to live must be positive (at least 1 ms): " + ttl);
        }
        return new Expiry(ttl.toMillis());
    }

    /** Whether the node expires at all. */
    public boolean expires() {
        return graceMillis != 0;
    }

    /** Whether the grace is the namenode's session timeout rather than the node's own. */
    public boolean isSession() {
        return graceMillis == -1;
    }

    void encode(ByteBuf out) {
        out.writeLong(graceMillis);
    }

    static Expiry decode(ByteBuf in, String field) {
        long grace = Wire.readLong(in, field);
        if (grace < -1) {
            throw new ProtocolException(field + ": a negative time to live " + grace);
        }
        return grace == 0 ? NONE : grace == -1 ? SESSION : new Expiry(grace);
    }

    @Override
    public String toString() {
        return graceMillis == 0 ? "never" : graceMillis == -1 ? "session" : "ttl " + Duration.ofMillis(graceMillis);
    }
}
