package io.creel.minicluster.cluster.model;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.util.Objects;

/**
 * What an operation came to: a value (compared by {@link #equals}) or the code of the error it
 * failed with. The model predicts one, the store produces one, and the runner compares them.
 */
record Outcome(ErrorCode error, Object value, String message) {
    static final Outcome DONE = new Outcome(null, "done", null);

    static Outcome ok(Object value) {
        return new Outcome(null, value, null);
    }

    static Outcome fail(ErrorCode code) {
        return new Outcome(code, null, null);
    }

    static Outcome of(CreelException e) {
        return new Outcome(e.code(), null, e.getMessage());
    }

    boolean failed() {
        return error != null;
    }

    boolean is(ErrorCode code) {
        return error == code;
    }

    /** Same error code, or same value; messages are for people, not compared. */
    boolean sameAs(Outcome other) {
        return error == other.error && Objects.equals(value, other.value);
    }

    @Override
    public String toString() {
        if (error != null) {
            return error + (message == null ? "" : " (" + message + ")");
        }
        String v = String.valueOf(value);
        return v.length() > 200 ? v.substring(0, 200) + "...(" + v.length() + " chars)" : v;
    }
}
