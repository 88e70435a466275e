package io.creel.client;

import java.nio.ByteBuffer;

/**
 * One key of an ordered Table with its value, as {@link CreelClient#scanValues} returns them.
 *
 * @param key   the key
 * @param value the value committed when the scan read it, ready to read (position 0); the caller owns it
 */
public record TableEntry(String key, ByteBuffer value) {
}
