package io.creel.common.rpc;

import io.creel.common.error.CreelException;

/**
 * Decides, once the last byte of a payload sent from memory has been handed to the socket (copied
 * into the kernel), whether those bytes were valid while they were copied: {@code null} if they were,
 * else the error the receiver fails with. Runs on the connection's event loop; must be quick.
 */
@FunctionalInterface
public interface PayloadCheck {
    CreelException afterSending();

    /**
     * The payload's memory is no longer needed: the connection has written or dropped the reply.
     * Runs exactly once, on any thread; the owner of the memory may release it from now on.
     */
    default void released() {
    }
}
