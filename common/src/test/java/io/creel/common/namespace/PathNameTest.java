package io.creel.common.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import org.junit.jupiter.api.Test;

class PathNameTest {
    private static void rejected(String path, ErrorCode code, String rulePart) {
        CreelException e = assertThrows(CreelException.class, () -> PathName.parse(path));
        assertEquals(code, e.code());
        assertTrue(e.getMessage().contains(rulePart), () -> "message '" + e.getMessage() + "' should name the rule '" + rulePart + "'");
    }

    @Test
    void parsesAbsolutePathsIntoComponents() {
        PathName p = PathName.parse("/jobs/42/shuffle");
        assertEquals(3, p.depth());
        assertEquals("shuffle", p.name());
        assertEquals("/jobs/42", p.parent().toString());
        assertEquals("jobs", p.topLevel());
        assertTrue(PathName.parse("/").isRoot());
        assertEquals(PathName.parse("/a"), PathName.parse("/a/"));
    }

    @Test
    void everyRuleViolationNamesTheRule() {
        rejected("", ErrorCode.INVALID_NAME, "must not be empty");
        rejected("a/b", ErrorCode.INVALID_NAME, "absolute");
        rejected("/a//b", ErrorCode.INVALID_NAME, "empty component");
        rejected("/a/./b", ErrorCode.INVALID_NAME, "'.' and '..'");
        rejected("/a/..", ErrorCode.INVALID_NAME, "'.' and '..'");
        rejected("/a\0b", ErrorCode.INVALID_NAME, "NUL");
        rejected("/" + "x".repeat(256), ErrorCode.INVALID_NAME, "255 bytes");
        rejected("/" + "é".repeat(128), ErrorCode.INVALID_NAME, "255 bytes"); // 256 bytes of UTF-8
        rejected("/a" + "/b".repeat(PathName.MAX_DEPTH), ErrorCode.LIMIT_EXCEEDED, "components deep");
        rejected("/" + ("y".repeat(200) + "/").repeat(21), ErrorCode.LIMIT_EXCEEDED, "4096 bytes");
        rejected("/bad\uD800name", ErrorCode.INVALID_NAME, "surrogate");
    }

    @Test
    void acceptsNamesAtTheLimits() {
        assertEquals(255, PathName.parse("/" + "x".repeat(255)).name().length());
        assertEquals("日本語", PathName.parse("/日本語").name());
        assertEquals(PathName.MAX_DEPTH, PathName.parse("/a".repeat(PathName.MAX_DEPTH)).depth());
    }

    @Test
    void withinComparesWholeComponents() {
        assertTrue(PathName.parse("/a/b/c").isWithin(PathName.parse("/a/b")));
        assertTrue(PathName.parse("/a/b").isWithin(PathName.parse("/a/b")));
        assertTrue(!PathName.parse("/a/bc").isWithin(PathName.parse("/a/b")));
    }
}
