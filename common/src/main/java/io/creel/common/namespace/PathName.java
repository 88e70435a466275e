package io.creel.common.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A validated absolute path such as {@code /jobs/42/shuffle}. Every naming rule is checked here,
 * and each violation raises {@link ErrorCode#INVALID_NAME} or {@link ErrorCode#LIMIT_EXCEEDED}
 * with a message naming the rule.
 */
public final class PathName {
    /** Longest name component, in UTF-8 bytes. */
    public static final int MAX_COMPONENT_BYTES = 255;
    /** Deepest path, in components. */
    public static final int MAX_DEPTH = 128;
    /** Longest path, in UTF-8 bytes. */
    public static final int MAX_PATH_BYTES = 4096;

    /** The root directory. */
    public static final PathName ROOT = new PathName(List.of());

    private final List<String> components;
    /** The path as text, made once on first use (paths are printed and sent far more often than built). */
    private String text;

    private PathName(List<String> components) {
        this.components = components;
    }

    private PathName(List<String> components, String text) {
        this.components = components;
        this.text = text;
    }

    /**
     * Parses an absolute path. A single trailing slash is accepted ({@code /a/} is {@code /a});
     * empty components ({@code /a//b}), {@code .} and {@code ..} are rejected.
     */
    public static PathName parse(String path) {
        if (path == null || path.isEmpty()) {
            throw invalid(String.valueOf(path), "a path must not be empty");
        }
        if (path.charAt(0) != '/') {
            throw invalid(path, "a path must be absolute (start with '/')");
        }
        // A char takes at most 3 bytes of UTF-8: only long paths need their bytes counted.
        if (path.length() * 3 > MAX_PATH_BYTES && path.getBytes(StandardCharsets.UTF_8).length > MAX_PATH_BYTES) {
            throw new CreelException(ErrorCode.LIMIT_EXCEEDED,
                    abbreviate(path) + ": a path may be at most " + MAX_PATH_BYTES + " bytes of UTF-8");
        }
        String body = path.length() > 1 && path.endsWith("/") ? path.substring(1, path.length() - 1) : path.substring(1);
        if (body.isEmpty()) {
            return ROOT;
        }
        List<String> parts = new ArrayList<>();
        int start = 0;
        while (true) {
            int slash = body.indexOf('/', start);
            String part = slash < 0 ? body.substring(start) : body.substring(start, slash);
            if (part.isEmpty()) {
                throw invalid(path, "a path must not contain an empty component ('//')");
            }
            checkComponent(path, part);
            parts.add(part);
            if (parts.size() > MAX_DEPTH) {
                throw new CreelException(ErrorCode.LIMIT_EXCEEDED,
                        abbreviate(path) + ": a path may be at most " + MAX_DEPTH + " components deep");
            }
            if (slash < 0) {
                break;
            }
            start = slash + 1;
        }
        return new PathName(Collections.unmodifiableList(parts), body.length() == path.length() - 1 ? path : null);
    }

    /** Checks one name component against the naming rules. */
    public static void checkComponent(String path, String name) {
        if (name.isEmpty()) {
            throw invalid(path, "a name must not be empty");
        }
        if (name.equals(".") || name.equals("..")) {
            throw invalid(path, "'.' and '..' are not allowed as names");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/') {
                throw invalid(path, "a name must not contain '/'");
            }
            if (c == 0) {
                throw invalid(path, "a name must not contain the NUL character");
            }
            if (Character.isSurrogate(c)) {
                boolean paired = Character.isHighSurrogate(c) && i + 1 < name.length()
                        && Character.isLowSurrogate(name.charAt(i + 1));
                if (!paired) {
                    throw invalid(path, "a name must be valid Unicode (unpaired surrogate)");
                }
                i++;
            }
        }
        if (name.length() * 3 > MAX_COMPONENT_BYTES && name.getBytes(StandardCharsets.UTF_8).length > MAX_COMPONENT_BYTES) {
            throw invalid(path, "a name may be at most " + MAX_COMPONENT_BYTES + " bytes of UTF-8");
        }
    }

    static CreelException invalid(String path, String rule) {
        return new CreelException(ErrorCode.INVALID_NAME, abbreviate(path) + ": " + rule);
    }

    static String abbreviate(String path) {
        return path.length() <= 120 ? path : path.substring(0, 100) + "...(" + path.length() + " chars)";
    }

    public boolean isRoot() {
        return components.isEmpty();
    }

    /** Number of components; the root has depth 0. */
    public int depth() {
        return components.size();
    }

    public List<String> components() {
        return components;
    }

    public String component(int i) {
        return components.get(i);
    }

    /** The last component; the root has none. */
    public String name() {
        if (isRoot()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "the root directory has no name");
        }
        return components.get(components.size() - 1);
    }

    /** The parent path; the root has none. */
    public PathName parent() {
        if (isRoot()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "the root directory has no parent");
        }
        return new PathName(components.subList(0, components.size() - 1));
    }

    /** The first component, which decides the namenode partition; the root has none. */
    public String topLevel() {
        return name0();
    }

    private String name0() {
        if (isRoot()) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, "the root directory has no top-level name");
        }
        return components.get(0);
    }

    public PathName child(String name) {
        String p = toString();
        checkComponent(p, name);
        List<String> c = new ArrayList<>(components);
        c.add(name);
        if (c.size() > MAX_DEPTH) {
            throw new CreelException(ErrorCode.LIMIT_EXCEEDED, p + "/" + name + ": a path may be at most "
                    + MAX_DEPTH + " components deep");
        }
        return new PathName(Collections.unmodifiableList(c));
    }

    /** Whether {@code this} equals {@code other} or lies below it. */
    public boolean isWithin(PathName other) {
        if (other.components.size() > components.size()) {
            return false;
        }
        return components.subList(0, other.components.size()).equals(other.components);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathName p && p.components.equals(components);
    }

    @Override
    public int hashCode() {
        return components.hashCode();
    }

    @Override
    public String toString() {
        String t = text;
        if (t == null) {
            t = isRoot() ? "/" : "/" + String.join("/", components);
            text = t;
        }
        return t;
    }
}
