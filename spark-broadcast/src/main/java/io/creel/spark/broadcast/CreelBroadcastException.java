package io.creel.spark.broadcast;

/** A broadcast could not be written to, read from or removed from Creel; the message names the broadcast and its File. */
public final class CreelBroadcastException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CreelBroadcastException(String message, Throwable cause) {
        super(message, cause);
    }

    public CreelBroadcastException(String message) {
        super(message);
    }
}
