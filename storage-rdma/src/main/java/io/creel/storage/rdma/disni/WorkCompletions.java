package io.creel.storage.rdma.disni;

import com.ibm.disni.verbs.IbvWC.IbvWcStatus;
import io.creel.storage.rdma.RdmaException.Kind;

/** Work completion status codes (enum ibv_wc_status) as failure kinds and readable text. */
final class WorkCompletions {
    static final int SUCCESS = IbvWcStatus.IBV_WC_SUCCESS.ordinal();

    private WorkCompletions() {
    }

    /** The status's name, e.g. "IBV_WC_REM_ACCESS_ERR", or "status 77" for a code DiSNI does not know. */
    static String name(int status) {
        IbvWcStatus[] all = IbvWcStatus.values();
        return status >= 0 && status < all.length ? all[status].name() : "status " + status;
    }

    /** What a failed status means for the caller. */
    static Kind kind(int status) {
        IbvWcStatus[] all = IbvWcStatus.values();
        if (status < 0 || status >= all.length) {
            return Kind.INTERNAL;
        }
        return switch (all[status]) {
            case IBV_WC_REM_ACCESS_ERR, IBV_WC_REM_INV_REQ_ERR, IBV_WC_REM_OP_ERR, IBV_WC_REM_INV_RD_REQ_ERR ->
                    Kind.REMOTE_ACCESS;
            case IBV_WC_RETRY_EXC_ERR, IBV_WC_RNR_RETRY_EXC_ERR, IBV_WC_RESP_TIMEOUT_ERR, IBV_WC_REM_ABORT_ERR,
                    IBV_WC_WR_FLUSH_ERR -> Kind.UNREACHABLE;
            default -> Kind.INTERNAL;
        };
    }

    /** "remote access error (IBV_WC_REM_ACCESS_ERR)" and the like. */
    static String describe(int status) {
        IbvWcStatus[] all = IbvWcStatus.values();
        String what = status < 0 || status >= all.length ? "unknown completion status" : switch (all[status]) {
            case IBV_WC_REM_ACCESS_ERR -> "remote access error: the peer refused the rkey or the address range";
            case IBV_WC_REM_INV_REQ_ERR -> "the peer found the request invalid (length or operation)";
            case IBV_WC_REM_OP_ERR -> "the peer could not complete the operation";
            case IBV_WC_RETRY_EXC_ERR -> "the peer did not answer (transport retries exhausted)";
            case IBV_WC_RNR_RETRY_EXC_ERR -> "the peer was not ready (receiver-not-ready retries exhausted)";
            case IBV_WC_WR_FLUSH_ERR -> "flushed: the queue pair went into error state";
            case IBV_WC_LOC_PROT_ERR -> "local protection error: the local buffer's lkey or range is wrong";
            case IBV_WC_LOC_LEN_ERR -> "local length error";
            case IBV_WC_LOC_QP_OP_ERR -> "local queue pair error";
            case IBV_WC_LOC_ACCESS_ERR -> "local access error";
            case IBV_WC_BAD_RESP_ERR -> "unexpected response from the peer";
            case IBV_WC_FATAL_ERR -> "fatal device error";
            case IBV_WC_RESP_TIMEOUT_ERR -> "response timeout";
            default -> "completion error";
        };
        return what + " (" + name(status) + ")";
    }
}
