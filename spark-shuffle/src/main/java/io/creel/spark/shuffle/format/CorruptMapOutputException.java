package io.creel.spark.shuffle.format;

/** A map output file whose index does not describe it (wrong format, truncated, or not a map output). */
public final class CorruptMapOutputException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptMapOutputException(String message) {
        super(message);
    }
}
