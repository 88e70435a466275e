package io.creel.minicluster.cluster.model;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Makes the next operation from the seed's random stream and the model's current namespace: mostly
 * valid calls on existing nodes and on new names beside them (a small pool of names, so creates
 * collide), sizes around block boundaries, and a share of calls that must fail (wrong types,
 * missing parents, occupied targets, broken names).
 */
final class OperationGenerator {
    /** Few names, so creates, moves and deletes run into each other; Unicode included. */
    private static final String[] NAMES = {"a", "b", "c", "日本", "x y", "ü-1"};

    private final Random random;
    private final int blockSize;
    private final ModelNamespace model;
    private long nextContent = 1;
    private int fresh;

    OperationGenerator(Random random, int blockSize, ModelNamespace model) {
        this.random = random;
        this.blockSize = blockSize;
        this.model = model;
    }

    /**
     * The next operation. {@code holding} says a writer is held open, {@code heldPath} is its File
     * ({@code null} if that was removed); {@code pressure} says recent operations ran out of space,
     * so deletes become likelier.
     */
    Operation next(boolean holding, String heldPath, boolean pressure) {
        while (true) {
            int roll = random.nextInt(100);
            Operation op = pick(roll, holding, heldPath, pressure);
            if (op != null) {
                return op;
            }
        }
    }

    private Operation pick(int roll, boolean holding, String heldPath, boolean pressure) {
        if (pressure && roll < 15) {
            return delete();
        }
        if (roll < 12) {
            return create();
        }
        if (roll < 27) {
            return writeFile();
        }
        if (roll < 33) {
            return append();
        }
        if (roll < 43) {
            return putValue();
        }
        if (roll < 48) {
            return getValue();
        }
        if (roll < 60) {
            return read();
        }
        if (roll < 66) {
            return delete();
        }
        if (roll < 72) {
            return move();
        }
        if (roll < 79) {
            return new Operation.Listing(any(containerTypes()));
        }
        if (roll < 82) {
            return new Operation.BagRead(random.nextInt(5) == 0 ? anyPath() : any(List.of(NodeType.BAG)));
        }
        if (roll < 90) {
            return held(holding, heldPath);
        }
        if (roll < 93) {
            return badPath();
        }
        return roll < 95 ? new Operation.CheckAll() : new Operation.Read(anyPath(), 0, 1);
    }

    private Operation create() {
        NodeType type = switch (random.nextInt(4)) {
            case 0, 1 -> NodeType.DIRECTORY;
            case 2 -> NodeType.TABLE;
            default -> NodeType.BAG;
        };
        String storageClass = storageClass();
        boolean enumerable = type != NodeType.TABLE || random.nextInt(4) != 0;
        return new Operation.Create(newPath(List.of(NodeType.DIRECTORY)), type, storageClass, enumerable);
    }

    private Operation writeFile() {
        int writes = 1 + random.nextInt(3);
        return new Operation.WriteFile(newPath(List.of(NodeType.DIRECTORY, NodeType.BAG)), storageClass(),
                sizes(writes), random.nextBoolean(), random.nextInt(3) == 0 ? random.nextInt(writes) : -1,
                nextContent++);
    }

    private Operation append() {
        int writes = 1 + random.nextInt(3);
        String path = random.nextInt(6) == 0 ? anyPath() : any(List.of(NodeType.FILE));
        return new Operation.Append(path, sizes(writes), random.nextBoolean(),
                random.nextInt(3) == 0 ? random.nextInt(writes) : -1, nextContent++);
    }

    private Operation putValue() {
        String table = random.nextInt(8) == 0 ? anyContainer() : any(List.of(NodeType.TABLE));
        return new Operation.PutValue(table, name(), size(), nextContent++);
    }

    private Operation getValue() {
        String table = random.nextInt(8) == 0 ? anyContainer() : any(List.of(NodeType.TABLE));
        return new Operation.GetValue(table, name());
    }

    private Operation read() {
        String path = random.nextInt(8) == 0 ? anyPath() : any(List.of(NodeType.FILE, NodeType.KEYVALUE));
        ModelNamespace.Node n = model.find(path);
        long length = n == null ? 0 : n.data.length();
        long offset = switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> Math.max(0, length - random.nextInt(blockSize + 2));
            case 2 -> nearBoundary(length);
            default -> length == 0 ? random.nextInt(3) : (long) (random.nextDouble() * (length + 2));
        };
        return new Operation.Read(path, offset, size());
    }

    private Operation delete() {
        String path = anyPath();
        return new Operation.Delete(path, random.nextInt(3) != 0);
    }

    private Operation move() {
        String source = random.nextInt(10) == 0 ? "/" : anyPath();
        ModelNamespace.Node moving = model.find(source);
        List<NodeType> parents = moving == null ? containerTypes() : switch (moving.type) {
            case KEYVALUE -> List.of(NodeType.TABLE);
            case FILE -> List.of(NodeType.DIRECTORY, NodeType.BAG);
            default -> List.of(NodeType.DIRECTORY);
        };
        String target = random.nextInt(5) == 0 ? anyPath() : newPath(parents);
        if (random.nextInt(10) == 0 && !source.equals("/")) {
            target = source + "/" + name(); // into its own subtree
        }
        return new Operation.Move(source, target);
    }

    private Operation held(boolean holding, String heldPath) {
        if (!holding) {
            List<String> files = model.pathsOf(NodeType.FILE);
            return files.isEmpty() ? null : new Operation.Hold(files.get(random.nextInt(files.size())));
        }
        if (random.nextInt(4) == 0) {
            return new Operation.HeldClose();
        }
        if (heldPath != null && random.nextInt(4) == 0) {
            return new Operation.Hold(heldPath); // a second writer: LEASE_CONFLICT
        }
        return new Operation.HeldWrite(size(), random.nextInt(3) == 0, nextContent++);
    }

    private Operation badPath() {
        String parent = anyContainer();
        String at = parent.equals("/") ? "" : parent;
        return switch (random.nextInt(7)) {
            case 0 -> new Operation.BadPath(at + "/.", "'.' is not a name", ErrorCode.INVALID_NAME);
            case 1 -> new Operation.BadPath(at + "/..", "'..' is not a name", ErrorCode.INVALID_NAME);
            case 2 -> new Operation.BadPath(at + "//x", "empty component", ErrorCode.INVALID_NAME);
            case 3 -> new Operation.BadPath(at + "/" + "n".repeat(256), "256-byte name", ErrorCode.INVALID_NAME);
            case 4 -> new Operation.BadPath("relative", "not absolute", ErrorCode.INVALID_NAME);
            case 5 -> new Operation.BadPath(at + "/nul\0", "NUL in a name", ErrorCode.INVALID_NAME);
            default -> new Operation.BadPath("/d".repeat(129), "129 components", ErrorCode.LIMIT_EXCEEDED);
        };
    }

    // ------------------------------------------------------------------ paths and sizes

    /**
     * A new name under an existing node: mostly one of {@code parents}' types, sometimes any
     * container or any node at all (the wrong ones must be refused).
     */
    private String newPath(List<NodeType> parents) {
        int r = random.nextInt(10);
        String parent = r == 0 ? anyPath() : r == 1 ? anyContainer() : any(parents);
        return (parent.equals("/") ? "" : parent) + "/" + name();
    }

    private String name() {
        int r = random.nextInt(20);
        if (r == 0) {
            return "n" + (fresh++);
        }
        if (r == 1) {
            return "é".repeat(127) + "z"; // 255 bytes of UTF-8: the longest name there is
        }
        return NAMES[random.nextInt(NAMES.length)];
    }

    private String storageClass() {
        return switch (random.nextInt(10)) {
            case 0, 1 -> "dram";
            case 2, 3 -> "disk";
            case 4 -> "nvme"; // not a class of this cluster
            default -> "";
        };
    }

    private String anyPath() {
        List<String> all = model.paths();
        return all.get(random.nextInt(all.size()));
    }

    private String anyContainer() {
        return any(containerTypes());
    }

    private static List<NodeType> containerTypes() {
        return List.of(NodeType.DIRECTORY, NodeType.TABLE, NodeType.BAG);
    }

    /** An existing node of one of {@code types}, else any path. */
    private String any(List<NodeType> types) {
        List<String> candidates = new ArrayList<>();
        for (NodeType t : types) {
            candidates.addAll(model.pathsOf(t));
        }
        return candidates.isEmpty() ? anyPath() : candidates.get(random.nextInt(candidates.size()));
    }

    private int[] sizes(int writes) {
        int[] s = new int[writes];
        for (int i = 0; i < writes; i++) {
            s[i] = size();
        }
        return s;
    }

    /** A size at, just below or just above a multiple of the block size, or anything up to three blocks. */
    private int size() {
        return switch (random.nextInt(6)) {
            case 0 -> random.nextInt(3);
            case 1 -> Math.max(0, blockSize * (1 + random.nextInt(2)) + random.nextInt(3) - 1);
            case 2 -> blockSize / 2 + random.nextInt(3) - 1;
            case 3 -> 1 + random.nextInt(600);
            default -> random.nextInt(3 * blockSize);
        };
    }

    private long nearBoundary(long length) {
        long blocks = Math.max(1, (length + blockSize - 1) / blockSize);
        return Math.max(0, (long) blockSize * random.nextInt((int) Math.min(blocks + 1, 1000)) + random.nextInt(3) - 1);
    }
}
