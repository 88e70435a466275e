package io.creel.ops.metrics;

import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RequestType;

/**
 * Error codes that answer a question rather than report a failure. A client asks "is this path
 * there?" with a LOOKUP before every {@code fs put}, {@code mkdir -p} or first-create-wins
 * {@code CREATE}, and NOT_FOUND or ALREADY_EXISTS is then the answer it hoped for. Counting those as
 * errors buried the few an operator must look at (OUT_OF_SPACE, STALE_BLOCK, INTERNAL, ...) under
 * one per put, so they appear in {@code creel_rpc_requests_total} only: not in
 * {@code creel_rpc_errors_total} and not on the status page's "Recent errors".
 */
public final class ExpectedOutcomes {
    private ExpectedOutcomes() {
    }

    /** Whether {@code code} in answer to {@code op} is an expected outcome, not an error. */
    public static boolean isAnswer(RequestType op, ErrorCode code) {
        return switch (code) {
            case NOT_FOUND -> op == Opcode.LOOKUP || op == Opcode.REMOVE;
            case ALREADY_EXISTS -> op == Opcode.CREATE;
            default -> false;
        };
    }
}
