package io.creel.namenode.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.OpenReply;
import io.creel.namenode.testing.Expect;
import org.junit.jupiter.api.Test;

class ContainerSemanticsTest {
    private final NamespaceFixture f = new NamespaceFixture();
    private final Namespace ns = f.ns;

    @Test
    void directoriesNestAndHoldEveryTypeButKeyValues() {
        f.create("/a", NodeType.DIRECTORY);
        f.create("/a/b", NodeType.DIRECTORY);
        f.create("/a/b/c", NodeType.DIRECTORY);
        f.create("/a/b/c/file", NodeType.FILE);
        f.create("/a/b/c/table", NodeType.TABLE);
        f.create("/a/b/c/bag", NodeType.BAG);
        assertEquals(NodeType.BAG, f.lookup("/a/b/c/bag").node().type());
        assertEquals(7, ns.nodeCount(), "six nodes plus the root");
    }

    @Test
    void aBagHoldsOnlyFilesAndIsFlat() {
        f.create("/bag", NodeType.BAG);
        f.create("/bag/part-0", NodeType.FILE);
        Expect.error(ErrorCode.INVALID_PARENT, () -> f.createAsync("/bag/sub", NodeType.DIRECTORY),
                "a Directory may only live in a Directory", "/bag is a Bag");
        Expect.error(ErrorCode.INVALID_PARENT, () -> f.createAsync("/bag/t", NodeType.TABLE),
                "a Table may only live in a Directory");
        Expect.error(ErrorCode.INVALID_PARENT, () -> f.createAsync("/bag/b", NodeType.BAG),
                "a Bag may only live in a Directory");
    }

    @Test
    void aTableHoldsOnlyKeyValues() {
        f.create("/t", NodeType.TABLE);
        Expect.error(ErrorCode.INVALID_PARENT, () -> f.createAsync("/t/f", NodeType.FILE),
                "a File may only live in a Directory or a Bag", "/t is a Table");
        Expect.error(ErrorCode.INVALID_PARENT, () -> f.createAsync("/t/d", NodeType.DIRECTORY));
    }

    @Test
    void filesAndKeyValuesHoldNothing() {
        f.create("/f", NodeType.FILE);
        Expect.error(ErrorCode.INVALID_PARENT, () -> f.createAsync("/f/x", NodeType.FILE), "/f is a File");
        Expect.error(ErrorCode.NOT_A_CONTAINER, () -> f.lookup("/f/x"), "/f is a File");
    }

    @Test
    void aMissingParentIsNamed() {
        Expect.error(ErrorCode.NOT_FOUND, () -> f.createAsync("/no/such/file", NodeType.FILE), "parent /no/such");
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/no/such"), "/no does not exist");
    }

    @Test
    void badNamesAreRejectedNamingTheRule() {
        Expect.error(ErrorCode.INVALID_NAME, () -> f.createAsync("relative", NodeType.FILE), "absolute");
        Expect.error(ErrorCode.INVALID_NAME, () -> f.createAsync("/a//b", NodeType.FILE), "empty component");
        Expect.error(ErrorCode.INVALID_NAME, () -> f.createAsync("/..", NodeType.DIRECTORY), "'..'");
        Expect.error(ErrorCode.INVALID_NAME, () -> f.createAsync("/" + "x".repeat(256), NodeType.FILE), "255 bytes");
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> f.createAsync("/", NodeType.DIRECTORY), "root");
    }

    @Test
    void containersOfAnyTypeCannotBeCreatedTwice() {
        f.create("/x", NodeType.TABLE);
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> f.createAsync("/x", NodeType.TABLE), "/x", "Table");
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> f.createAsync("/x", NodeType.BAG), "/x");
    }

    @Test
    void aContainerWithChildrenIsRemovedOnlyRecursively() {
        f.create("/d", NodeType.DIRECTORY);
        OpenReply file = f.create("/d/f", NodeType.FILE);
        Expect.error(ErrorCode.NOT_EMPTY, () -> ns.remove("/d", false), "/d", "recursively");
        assertEquals(NodeType.DIRECTORY, Expect.done(ns.remove("/d", true)).type());
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/d/f"));
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.map(file.node().id(), 0, file.lease()), "removed");
        assertEquals(1, ns.nodeCount());
        f.create("/d", NodeType.DIRECTORY);
    }

    @Test
    void theRootCannotBeRemovedOrMoved() {
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.remove("/", true), "root");
        Expect.error(ErrorCode.UNSUPPORTED, () -> ns.move("/", "/x"), "root");
    }

    @Test
    void moveIsAtomicAndKeepsTheNode() {
        f.create("/a", NodeType.DIRECTORY);
        OpenReply w = f.create("/a/f", NodeType.FILE);
        f.commit(w, 10, false); // bytes in block 0, so readers see the block the File keeps
        f.create("/b", NodeType.DIRECTORY);
        Expect.done(ns.move("/a/f", "/b/g"));
        Expect.error(ErrorCode.NOT_FOUND, () -> f.lookup("/a/f"));
        assertEquals(w.node().id(), f.lookup("/b/g").node().id());
        assertEquals(w.firstBlock(), f.lookup("/b/g").firstBlock());
        Expect.done(ns.move("/b", "/c"));
        assertEquals(w.node().id(), f.lookup("/c/g").node().id(), "a directory moves with its subtree");
    }

    @Test
    void moveRefusesAnExistingTarget() {
        f.create("/a", NodeType.FILE);
        f.create("/b", NodeType.FILE);
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> ns.move("/a", "/b"), "/b");
        Expect.error(ErrorCode.ALREADY_EXISTS, () -> ns.move("/a", "/a"));
    }

    @Test
    void moveRespectsContainment() {
        f.create("/f", NodeType.FILE);
        f.create("/t", NodeType.TABLE);
        f.create("/bag", NodeType.BAG);
        Expect.error(ErrorCode.INVALID_PARENT, () -> ns.move("/f", "/t/f"), "a File may only live in a Directory or a Bag");
        Expect.done(ns.move("/f", "/bag/f"));
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.move("/bag/f", "/none/f"), "parent /none");
        Expect.error(ErrorCode.NOT_FOUND, () -> ns.move("/missing", "/x"), "/missing");
    }

    @Test
    void aContainerCannotMoveIntoItsOwnSubtree() {
        f.create("/a", NodeType.DIRECTORY);
        f.create("/a/b", NodeType.DIRECTORY);
        Expect.error(ErrorCode.UNSUPPORTED, () -> ns.move("/a", "/a/b/a"), "own subtree");
    }

    @Test
    void aNodeInheritsTheStorageClassOfItsNearestAncestorWithOne() {
        f.create("/cold", NodeType.DIRECTORY, "disk");
        f.create("/cold/sub", NodeType.DIRECTORY);
        OpenReply w = f.create("/cold/sub/f", NodeType.FILE);
        assertEquals("disk", w.firstBlock().server().storageClass());
        assertEquals("", w.node().storageClass(), "the node itself names no class");
        assertEquals("dram", f.create("/hot", NodeType.FILE).firstBlock().server().storageClass(),
                "without any class, the first of creel.storage.classes");
        assertEquals("dram", f.create("/cold/sub/own", NodeType.FILE, "dram").firstBlock().server().storageClass());
        Expect.error(ErrorCode.INVALID_ARGUMENT,
                () -> ns.create(new CreateRequest("/x", NodeType.FILE, "tape", "", true), NamespaceFixture.CONN),
                "tape", "dram, disk");
    }

    @Test
    void aFileSpillsToDiskWhenDramIsFullAndOutOfSpaceHarmsNothing() {
        // Two DRAM blocks: one for /a, one for the root's directory records; one disk block.
        NamespaceFixture small = new NamespaceFixture(2, 1);
        OpenReply a = Expect.done(small.ns.create(new CreateRequest("/a", NodeType.FILE, "", "", false),
                NamespaceFixture.CONN));
        assertEquals("dram", a.firstBlock().server().storageClass());
        OpenReply b = Expect.done(small.ns.create(new CreateRequest("/b", NodeType.FILE, "", "", false),
                NamespaceFixture.CONN));
        assertEquals("disk", b.firstBlock().server().storageClass());
        Expect.error(ErrorCode.OUT_OF_SPACE, () -> small.ns.map(b.node().id(), 1, b.lease()), "no free block");
        Expect.error(ErrorCode.OUT_OF_SPACE,
                () -> small.ns.create(new CreateRequest("/c", NodeType.FILE, "", "", false), NamespaceFixture.CONN));
        // a failed create leaves no node
        Expect.error(ErrorCode.NOT_FOUND, () -> small.lookup("/c"), "/c");
        small.commit(b, 100, true);
        assertEquals(100, small.lookup("/b").node().length());
        assertEquals(a.firstBlock(), small.ns.map(a.node().id(), 0, 0));
        assertEquals(3, small.ns.nodeCount());
    }

    @Test
    void tablesMayBeNonEnumerable() {
        Expect.done(ns.create(new CreateRequest("/t", NodeType.TABLE, "", "", false), NamespaceFixture.CONN));
        assertFalse(f.lookup("/t").node().enumerable());
    }
}
