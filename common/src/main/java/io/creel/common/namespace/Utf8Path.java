package io.creel.common.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An absolute path as UTF-8 bytes, checked once against the naming rules of {@link PathName} (the
 * same rules, codes and messages) and cut into components without making a string per component.
 * The namenode resolves paths in this form: names are kept and compared as bytes, and a string is
 * made only for an error message.
 *
 * <p>Beyond {@link PathName}'s rules, the bytes must be well-formed UTF-8 (a Java client always
 * sends that; anything else is rejected rather than stored as garbage).
 */
public final class Utf8Path {
    private static final Utf8Path ROOT = new Utf8Path(new byte[] {'/'}, new int[0]);

    private final byte[] bytes;
    /** Start and end (exclusive) offsets into {@link #bytes} of each component, in pairs. */
    private final int[] bounds;

    private Utf8Path(byte[] bytes, int[] bounds) {
        this.bytes = bytes;
        this.bounds = bounds;
    }

    /** Parses {@code path} (as {@link PathName#parse} would). */
    public static Utf8Path parse(String path) {
        if (path == null || path.isEmpty()) {
            throw PathName.invalid(String.valueOf(path), "a path must not be empty");
        }
        // UTF-8 encoding would turn an unpaired surrogate into '?': catch it in the string.
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (Character.isSurrogate(c)) {
                if (!Character.isHighSurrogate(c) || i + 1 == path.length()
                        || !Character.isLowSurrogate(path.charAt(i + 1))) {
                    throw PathName.invalid(path, "a name must be valid Unicode (unpaired surrogate)");
                }
                i++;
            }
        }
        return parse(path.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Parses UTF-8 bytes, which the returned path keeps (the caller must not change them). A single
     * trailing slash is accepted; empty components, {@code .} and {@code ..} are rejected.
     */
    public static Utf8Path parse(byte[] utf8) {
        int n = utf8.length;
        if (n == 0) {
            throw PathName.invalid("", "a path must not be empty");
        }
        if (utf8[0] != '/') {
            throw PathName.invalid(text(utf8), "a path must be absolute (start with '/')");
        }
        if (n > PathName.MAX_PATH_BYTES) {
            throw new CreelException(ErrorCode.LIMIT_EXCEEDED, PathName.abbreviate(text(utf8))
                    + ": a path may be at most " + PathName.MAX_PATH_BYTES + " bytes of UTF-8");
        }
        int end = n > 1 && utf8[n - 1] == '/' ? n - 1 : n;
        if (end == 1) {
            return ROOT;
        }
        int[] bounds = new int[16];
        int count = 0;
        int start = 1;
        while (true) {
            int slash = start;
            while (slash < end && utf8[slash] != '/') {
                slash++;
            }
            checkComponent(utf8, start, slash);
            if (count / 2 == PathName.MAX_DEPTH) {
                throw new CreelException(ErrorCode.LIMIT_EXCEEDED, PathName.abbreviate(text(utf8))
                        + ": a path may be at most " + PathName.MAX_DEPTH + " components deep");
            }
            if (count == bounds.length) {
                bounds = Arrays.copyOf(bounds, count * 2);
            }
            bounds[count++] = start;
            bounds[count++] = slash;
            if (slash == end) {
                break;
            }
            start = slash + 1;
        }
        return new Utf8Path(utf8, count == bounds.length ? bounds : Arrays.copyOf(bounds, count));
    }

    /** Checks the component {@code [from, to)} of {@code path} against the naming rules. */
    private static void checkComponent(byte[] path, int from, int to) {
        int len = to - from;
        if (len == 0) {
            throw PathName.invalid(text(path), "a path must not contain an empty component ('//')");
        }
        if (path[from] == '.' && (len == 1 || len == 2 && path[from + 1] == '.')) {
            throw PathName.invalid(text(path), "'.' and '..' are not allowed as names");
        }
        if (len > PathName.MAX_COMPONENT_BYTES) {
            throw PathName.invalid(text(path), "a name may be at most " + PathName.MAX_COMPONENT_BYTES
                    + " bytes of UTF-8");
        }
        for (int i = from; i < to; i++) {
            byte b = path[i];
            if (b == 0) {
                throw PathName.invalid(text(path), "a name must not contain the NUL character");
            }
            if (b < 0) {
                i = checkSequence(path, i, to);
            }
        }
    }

    /**
     * Checks the multi-byte UTF-8 sequence starting at {@code i} (well-formed, shortest form, no
     * surrogates, at most U+10FFFF); returns the index of its last byte.
     */
    private static int checkSequence(byte[] p, int i, int to) {
        int b0 = p[i] & 0xff;
        int extra;
        int min;
        int cp;
        if (b0 >= 0xc2 && b0 <= 0xdf) {
            extra = 1;
            min = 0x80;
            cp = b0 & 0x1f;
        } else if (b0 >= 0xe0 && b0 <= 0xef) {
            extra = 2;
            min = 0x800;
            cp = b0 & 0x0f;
        } else if (b0 >= 0xf0 && b0 <= 0xf4) {
            extra = 3;
            min = 0x10000;
            cp = b0 & 0x07;
        } else {
            throw PathName.invalid(text(p), "a name must be valid UTF-8");
        }
        if (i + extra >= to) {
            throw PathName.invalid(text(p), "a name must be valid UTF-8 (truncated sequence)");
        }
        for (int k = 1; k <= extra; k++) {
            int b = p[i + k] & 0xff;
            if ((b & 0xc0) != 0x80) {
                throw PathName.invalid(text(p), "a name must be valid UTF-8");
            }
            cp = cp << 6 | b & 0x3f;
        }
        if (cp < min || cp > 0x10ffff) {
            throw PathName.invalid(text(p), "a name must be valid UTF-8 (overlong or out of range)");
        }
        if (cp >= 0xd800 && cp <= 0xdfff) {
            throw PathName.invalid(text(p), "a name must be valid Unicode (unpaired surrogate)");
        }
        return i + extra;
    }

    private static String text(byte[] utf8) {
        return new String(utf8, StandardCharsets.UTF_8);
    }

    public boolean isRoot() {
        return bounds.length == 0;
    }

    /** Number of components; the root has depth 0. */
    public int depth() {
        return bounds.length / 2;
    }

    /** The bytes the path was parsed from (not to be changed). */
    public byte[] bytes() {
        return bytes;
    }

    /** Where component {@code i} starts in {@link #bytes()}. */
    public int start(int i) {
        return bounds[2 * i];
    }

    /** Where component {@code i} ends (exclusive) in {@link #bytes()}. */
    public int end(int i) {
        return bounds[2 * i + 1];
    }

    /** Component {@code i}'s bytes, as a new array. */
    public byte[] component(int i) {
        return Arrays.copyOfRange(bytes, start(i), end(i));
    }

    /** The last component's bytes, as a new array; the root has none. */
    public byte[] name() {
        if (isRoot()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "the root directory has no name");
        }
        return component(depth() - 1);
    }

    /** The first {@code components} components as a path string ("/" for none), for messages. */
    public String prefix(int components) {
        if (components == 0) {
            return "/";
        }
        return new String(bytes, 0, end(components - 1), StandardCharsets.UTF_8);
    }

    /** Whether this path equals {@code other} or lies below it. */
    public boolean isWithin(Utf8Path other) {
        if (other.depth() > depth()) {
            return false;
        }
        for (int i = 0; i < other.depth(); i++) {
            if (!Arrays.equals(bytes, start(i), end(i), other.bytes, other.start(i), other.end(i))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Utf8Path p && p.depth() == depth() && isWithin(p);
    }

    @Override
    public int hashCode() {
        int h = depth();
        for (int i = 0; i < depth(); i++) {
            for (int k = start(i); k < end(i); k++) {
                h = 31 * h + bytes[k];
            }
        }
        return h;
    }

    /** The path without a trailing slash ("/" for the root). */
    @Override
    public String toString() {
        return prefix(depth());
    }
}
