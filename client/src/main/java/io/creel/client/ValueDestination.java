package io.creel.client;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.ByteBuffer;

/**
 * Where a get puts a value's bytes: a new buffer per get, or the caller's buffer. Either way a get
 * is given a slot of exactly the value's length, positioned at its start, and finishes with the
 * slot's position at its end.
 */
abstract class ValueDestination {
    /** A new heap buffer of the value's length for each get. */
    static final ValueDestination NEW = new ValueDestination() {
        @Override
        boolean fits(long length) {
            return true;
        }

        @Override
        ByteBuffer slot(long length) {
            return ByteBuffer.allocate((int) length);
        }

        @Override
        ByteBuffer inline(byte[] bytes) {
            // The bytes came with the lookup reply and belong to this get alone: no copy.
            return ByteBuffer.wrap(bytes).position(bytes.length);
        }
    };

    /** The remaining space of {@code dst}, from its position; {@code dst} itself is not moved. */
    static ValueDestination into(String path, ByteBuffer dst) {
        return new ValueDestination() {
            @Override
            boolean fits(long length) {
                return length <= dst.remaining();
            }

            @Override
            ByteBuffer slot(long length) {
                if (!fits(length)) {
                    throw new CreelException(ErrorCode.LIMIT_EXCEEDED, path + ": the value is " + length
                            + " bytes long; the buffer given has room for " + dst.remaining());
                }
                ByteBuffer slot = dst.duplicate();
                return slot.limit(slot.position() + (int) length);
            }

            @Override
            ByteBuffer inline(byte[] bytes) {
                return slot(bytes.length).put(bytes);
            }
        };
    }

    /** Whether a value of {@code length} bytes fits. */
    abstract boolean fits(long length);

    /**
     * A buffer with exactly {@code length} bytes remaining for the value.
     *
     * @throws CreelException LIMIT_EXCEEDED when the value does not fit
     */
    abstract ByteBuffer slot(long length);

    /** A value that came inline with its lookup, already in place: position at its end. */
    abstract ByteBuffer inline(byte[] bytes);
}
