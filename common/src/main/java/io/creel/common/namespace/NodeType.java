package io.creel.common.namespace;

/**
 * The five kinds of node and the containment rules between them (DESIGN.md, "Namespace").
 */
public enum NodeType {
    /** Nests arbitrarily; holds Directories, Files, Tables and Bags; always enumerable. */
    DIRECTORY(1, "Directory"),
    /** A byte stream with first-create-wins and a single appending writer. */
    FILE(2, "File"),
    /** A flat container of KeyValues, optionally non-enumerable. */
    TABLE(3, "Table"),
    /** A value in a Table, replaced atomically by a committed create. */
    KEYVALUE(4, "KeyValue"),
    /** A flat container of Files that reads as one stream. */
    BAG(5, "Bag");

    private final int code;
    private final String displayName;

    NodeType(int code, String displayName) {
        this.code = code;
        this.displayName = displayName;
    }

    public int code() {
        return code;
    }

    /** The name users see in messages and listings: "Directory", "KeyValue", ... */
    public String displayName() {
        return displayName;
    }

    public boolean isContainer() {
        return this == DIRECTORY || this == TABLE || this == BAG;
    }

    /** Whether a node of this type may hold a child of {@code child}'s type. */
    public boolean mayContain(NodeType child) {
        return switch (this) {
            case DIRECTORY -> child == DIRECTORY || child == FILE || child == TABLE || child == BAG;
            case TABLE -> child == KEYVALUE;
            case BAG -> child == FILE;
            case FILE, KEYVALUE -> false;
        };
    }

    /** Explains why {@code parent} may not hold {@code child}, for error messages. */
    public static String containmentRule(NodeType child) {
        return switch (child) {
            case DIRECTORY -> "a Directory may only live in a Directory";
            case FILE -> "a File may only live in a Directory or a Bag";
            case TABLE -> "a Table may only live in a Directory";
            case KEYVALUE -> "a KeyValue may only live in a Table";
            case BAG -> "a Bag may only live in a Directory";
        };
    }

    public static NodeType ofCode(int code) {
        for (NodeType t : values()) {
            if (t.code == code) {
                return t;
            }
        }
        throw new IllegalArgumentException("unknown node type code " + code);
    }

    /** Parses a user-facing name, case-insensitively: "file", "keyvalue" / "kv", "table", "bag", "directory" / "dir". */
    public static NodeType parse(String s) {
        return switch (s.toLowerCase(java.util.Locale.ROOT)) {
            case "directory", "dir" -> DIRECTORY;
            case "file" -> FILE;
            case "table" -> TABLE;
            case "keyvalue", "kv" -> KEYVALUE;
            case "bag" -> BAG;
            default -> throw new IllegalArgumentException("unknown node type: " + s);
        };
    }
}
