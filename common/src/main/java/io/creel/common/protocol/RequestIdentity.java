package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.security.SecureRandom;

/**
 * Who sent a mutating request, and which of its requests it is: a client's random 128-bit id
 * (chosen once per client) and a sequence number the client never reuses. A retry of a request
 * carries the same identity, so the namenode can answer it with the first attempt's answer instead
 * of applying it again. On the wire it precedes the request's body when the frame has
 * {@link Frame#FLAG_IDENTIFIED} ({@link #SIZE} bytes: client id high, low, sequence).
 */
public record RequestIdentity(long clientHigh, long clientLow, long sequence) {
    /** Bytes on the wire. */
    public static final int SIZE = 24;

    private static final SecureRandom RANDOM = new SecureRandom();

    /** A fresh random client id with sequence 0; derive requests' identities with {@link #withSequence}. */
    public static RequestIdentity newClient() {
        return new RequestIdentity(RANDOM.nextLong(), RANDOM.nextLong(), 0);
    }

    /** The same client's request number {@code seq}. */
    public RequestIdentity withSequence(long seq) {
        return new RequestIdentity(clientHigh, clientLow, seq);
    }

    /** Whether {@code other} names the same client. */
    public boolean sameClient(RequestIdentity other) {
        return clientHigh == other.clientHigh && clientLow == other.clientLow;
    }

    /**
     * The client's id as 32 hex digits: its session id, which {@code fs stat} shows as an expiring
     * node's owner and a hand-over names.
     */
    public String clientText() {
        return String.format("%016x%016x", clientHigh, clientLow);
    }

    /**
     * The client named by {@code text} ({@link #clientText()}), with sequence 0.
     *
     * @throws IllegalArgumentException unless it is 32 hex digits
     */
    public static RequestIdentity parseClient(String text) {
        if (text == null || text.length() != 32) {
            throw new IllegalArgumentException("a client session id is 32 hex digits: " + text);
        }
        try {
            return new RequestIdentity(Long.parseUnsignedLong(text.substring(0, 16), 16),
                    Long.parseUnsignedLong(text.substring(16), 16), 0);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a client session id is 32 hex digits: " + text, e);
        }
    }

    public void encode(ByteBuf out) {
        out.writeLong(clientHigh).writeLong(clientLow).writeLong(sequence);
    }

    public static RequestIdentity decode(ByteBuf in) {
        return new RequestIdentity(Wire.readLong(in, "identity.client"), Wire.readLong(in, "identity.client"),
                Wire.readLong(in, "identity.sequence"));
    }

    @Override
    public String toString() {
        return String.format("%016x%016x#%d", clientHigh, clientLow, sequence);
    }
}
