package io.creel.common.error;

/**
 * An error a server sent as its answer to a request, as opposed to a failure to get an answer (a
 * lost connection, a refused connect): a retry of the same request gets the same answer, so a
 * client retries only the failures that are not answers, even when both carry the same code
 * (UNAVAILABLE).
 */
public final class AnsweredException extends CreelException {
    private static final long serialVersionUID = 1L;

    public AnsweredException(ErrorCode code, String message) {
        super(code, message);
    }
}
