package io.creel.common.error;

/**
 * The one exception type Creel raises for a failed operation: an {@link ErrorCode} plus a message
 * written for the user ("/a/b: KeyValue nodes may only live in a Table").
 */
public class CreelException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public CreelException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public CreelException(ErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }

    /** Finds the CreelException inside a completion or execution wrapper, or wraps the throwable as INTERNAL. */
    public static CreelException unwrap(Throwable t) {
        Throwable cur = t;
        while (cur != null) {
            if (cur instanceof CreelException ce) {
                return ce;
            }
            cur = cur.getCause();
        }
        return new CreelException(ErrorCode.INTERNAL, String.valueOf(t), t);
    }

    @Override
    public String toString() {
        return code + ": " + getMessage();
    }
}
