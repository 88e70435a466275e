package io.creel.storage.nvmf.volume;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.nvmf.NvmfException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** NVMe-oF failures as Creel reports them: the kind decides the code, the message keeps the details. */
public final class NvmfErrors {
    private NvmfErrors() {
    }

    /** The code a failure of this kind travels with. */
    public static ErrorCode code(NvmfException.Kind kind) {
        return switch (kind) {
            case TIMEOUT -> ErrorCode.TIMEOUT;
            case CONNECTION -> ErrorCode.UNAVAILABLE;
            case PROTOCOL -> ErrorCode.PROTOCOL;
            case INVALID_ARGUMENT -> ErrorCode.INVALID_ARGUMENT;
            // The target failed a valid command (a status), or bytes arrived damaged (a digest).
            case STATUS, DATA_DIGEST -> ErrorCode.INTERNAL;
        };
    }

    /**
     * {@code t} as a CreelException: a CreelException inside it as it is, an NvmfException as its code
     * with {@code where} before its message, anything else INTERNAL.
     */
    public static CreelException toCreel(Throwable t, String where) {
        Throwable cur = t;
        while ((cur instanceof CompletionException || cur instanceof ExecutionException) && cur.getCause() != null) {
            cur = cur.getCause();
        }
        if (cur instanceof CreelException c) {
            return c;
        }
        NvmfException n = NvmfException.find(cur);
        if (n != null) {
            return new CreelException(code(n.kind()), where + ": " + n.getMessage(), n);
        }
        return new CreelException(ErrorCode.INTERNAL, where + ": " + cur, cur);
    }
}
