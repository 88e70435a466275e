package io.creel.storage.nvmf.tcp;

import io.creel.common.inflight.InFlightTable;
import io.creel.storage.nvmf.nvme.NvmeCommand;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;

/**
 * The state of one outstanding command on a queue pair; its index is the command identifier (CID).
 * Slots are made once per queue, one per CID ({@link #madeOncePerCid}), and put back in the queue's
 * {@link io.creel.common.inflight.InFlightSlots} under their own CID for every command, so sending a
 * command allocates no slot. Only the queue's event loop touches them.
 */
final class CommandSlot implements InFlightTable.Deadlined {
    final int cid;

    NvmeCommand command;
    CompletableFuture<Object> future;
    /** Complete the future with the CQE result (a Long) rather than null. */
    boolean wantsResult;
    private long deadlineNanos;
    /** Data moved so far: C2HData bytes received for a read, bytes sent for a write. */
    long transferred;
    /** Bytes the controller has asked for with R2Ts. */
    long solicited;
    boolean inCapsule;
    boolean dataDigestError;

    CommandSlot(int cid) {
        this.cid = cid;
    }

    /**
     * The slots of CIDs 0..depth-1, each made now: what {@code InFlightSlots.add} is given, so a CID
     * always gets its own slot back (one function per queue, made once: adding allocates nothing).
     */
    static IntFunction<CommandSlot> madeOncePerCid(int depth) {
        CommandSlot[] slots = new CommandSlot[depth];
        for (int cid = 0; cid < depth; cid++) {
            slots[cid] = new CommandSlot(cid);
        }
        return cid -> slots[cid];
    }

    @Override
    public long deadlineNanos() {
        return deadlineNanos;
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

    /** Drops the finished command and its future (the slot stays, for the CID's next command). */
    void clear() {
        command = null;
        future = null;
    }
}
