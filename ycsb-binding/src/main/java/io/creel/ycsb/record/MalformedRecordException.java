package io.creel.ycsb.record;

/**
 * A value that is not a record of this binding's format: truncated, a length past its end, a
 * repeated field name, trailing bytes, or another format version (a value written by something
 * other than the binding, e.g. {@code bin/creel kv put}). The message says what and at which offset.
 */
public final class MalformedRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedRecordException(String message) {
        super(message);
    }
}
