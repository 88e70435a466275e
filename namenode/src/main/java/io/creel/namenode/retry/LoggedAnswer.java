package io.creel.namenode.retry;

import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RequestIdentity;

/**
 * A mutation's answer as the operation log keeps it: the request's identity and opcode, the encoded
 * reply, and when it was given (wall-clock milliseconds, so its expiry continues across a restart).
 * The reply array is never changed.
 */
public record LoggedAnswer(RequestIdentity identity, Opcode opcode, byte[] reply, long atMillis) {
}
