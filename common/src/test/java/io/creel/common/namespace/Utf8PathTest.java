package io.creel.common.namespace;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The namenode's byte form of a path keeps exactly the naming rules of {@link PathName}, and rejects broken UTF-8. */
class Utf8PathTest {
    private static final List<String> PATHS = List.of("/", "/a", "/a/", "/jobs/42/shuffle", "/日本/語", "/a//b",
            "a/b", "", "/a/./b", "/a/..", "/.", "/..x/...", "/a\0b", "/" + "x".repeat(255), "/" + "x".repeat(256),
            "/" + "é".repeat(127), "/" + "é".repeat(128), "/a" + "/b".repeat(PathName.MAX_DEPTH - 1),
            "/a" + "/b".repeat(PathName.MAX_DEPTH), "/" + ("y".repeat(200) + "/").repeat(21), "/bad\uD800name",
            "/ok\uD83D\uDE00emoji", "//");

    @Test
    void acceptsAndRejectsExactlyWhatPathNameDoesWithTheSameCodeAndMessage() {
        for (String path : PATHS) {
            CreelException expected = null;
            PathName p = null;
            try {
                p = PathName.parse(path);
            } catch (CreelException e) {
                expected = e;
            }
            if (expected == null) {
                Utf8Path u = Utf8Path.parse(path);
                assertEquals(p.toString(), u.toString(), path);
                assertEquals(p.depth(), u.depth(), path);
                for (int i = 0; i < p.depth(); i++) {
                    assertArrayEquals(p.component(i).getBytes(StandardCharsets.UTF_8), u.component(i), path);
                }
            } else {
                CreelException e = assertThrows(CreelException.class, () -> Utf8Path.parse(path), path);
                assertEquals(expected.code(), e.code(), path);
                assertEquals(expected.getMessage(), e.getMessage(), path);
            }
        }
    }

    @Test
    void malformedUtf8IsRejectedAsAnInvalidName() {
        byte[][] broken = {
            {'/', 'a', (byte) 0x80},                        // a continuation byte alone
            {'/', (byte) 0xc3},                             // a sequence cut short by the end
            {'/', (byte) 0xe6, (byte) 0x97, '/', 'b'},      // a sequence cut short by a slash
            {'/', (byte) 0xc0, (byte) 0xaf},                // overlong '/'
            {'/', (byte) 0xe0, (byte) 0x80, (byte) 0xaf},   // overlong, three bytes
            {'/', (byte) 0xed, (byte) 0xa0, (byte) 0x80},   // an encoded surrogate
            {'/', (byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80}, // beyond U+10FFFF
            {'/', (byte) 0xff},
        };
        for (byte[] b : broken) {
            CreelException e = assertThrows(CreelException.class, () -> Utf8Path.parse(b));
            assertEquals(ErrorCode.INVALID_NAME, e.code());
            assertTrue(e.getMessage().contains("valid"), e.getMessage());
        }
        assertEquals("/\uD83D\uDE00", Utf8Path.parse("/\uD83D\uDE00".getBytes(StandardCharsets.UTF_8)).toString());
    }

    @Test
    void prefixesAndContainmentWorkOnWholeComponents() {
        Utf8Path p = Utf8Path.parse("/a/bc/d/");
        assertEquals("/", p.prefix(0));
        assertEquals("/a/bc", p.prefix(2));
        assertEquals("/a/bc/d", p.toString());
        assertArrayEquals("d".getBytes(StandardCharsets.UTF_8), p.name());
        assertTrue(p.isWithin(Utf8Path.parse("/a/bc")));
        assertTrue(p.isWithin(Utf8Path.parse("/")));
        assertFalse(p.isWithin(Utf8Path.parse("/a/b")));
        assertFalse(Utf8Path.parse("/a").isWithin(p));
        assertEquals(Utf8Path.parse("/a/bc/d"), p);
        assertEquals(Utf8Path.parse("/a/bc/d").hashCode(), p.hashCode());
        assertNotEquals(Utf8Path.parse("/a/bc"), p);
        assertTrue(Utf8Path.parse("/").isRoot());
        assertThrows(CreelException.class, () -> Utf8Path.parse("/").name());
    }
}
