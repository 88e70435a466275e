package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.nvme.NvmeCommand;
import java.util.concurrent.CompletableFuture;

/**
 * The state of one outstanding command on a queue pair; its index is the command identifier (CID).
 * Slots are made once per queue and reused; only the queue's event loop touches them.
 */
final class CommandSlot {
    final int cid;

    NvmeCommand command;
    CompletableFuture<Object> future;
    /** Complete the future with the CQE result (a Long) rather than null. */
    boolean wantsResult;
    long deadlineNanos;
    /** Data moved so far: C2HData bytes received for a read, bytes sent for a write. */
    long transferred;
    /** Bytes the controller has asked for with R2Ts. */
    long solicited;
    boolean inCapsule;
    boolean dataDigestError;

    CommandSlot(int cid) {
        this.cid = cid;
    }

    boolean active() {
        return command != null;
    }

    void begin(NvmeCommand cmd, CompletableFuture<Object> f, boolean result, long deadline) {
        command = cmd;
        future = f;
        wantsResult = result;
        deadlineNanos = deadline;
        transferred = 0;
        solicited = 0;
        inCapsule = false;
        dataDigestError = false;
    }

    void clear() {
        command = null;
        future = null;
    }
}
