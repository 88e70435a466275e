package io.creel.namenode.namespace;

import static io.creel.namenode.namespace.NamespaceFixture.CONN;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.CreateRequest;
import io.creel.common.protocol.Expiry;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.ScanReply;
import io.creel.common.protocol.ScanRequest;
import io.creel.namenode.testing.Expect;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * An ordered Table keeps its keys in UTF-8 byte order through creates, replacements, removals and
 * moves, and SCAN reads them from a start key in pages, each key with its inline value; an
 * unordered Table, or anything else, cannot be scanned and says so.
 */
class OrderedTableTest {
    private final NamespaceFixture f = new NamespaceFixture();
    private final Namespace ns = f.ns;
    private final TableScans scans = new TableScans(ns, (1 << 20) + (64 << 10));

    OrderedTableTest() {
        createTable("/t", true);
    }

    private void createTable(String path, boolean ordered) {
        Expect.done(ns.create(new CreateRequest(path, NodeType.TABLE, "", "", false, null, 0, Expiry.NONE, ordered),
                CONN));
    }

    /** Puts a value the namenode keeps inline: committed by the create itself. */
    private OpenReply put(String path, String value) {
        OpenReply r = Expect.done(ns.create(new CreateRequest(path, NodeType.KEYVALUE, "", "", true,
                value.getBytes(StandardCharsets.UTF_8)), CONN));
        assertEquals(0, r.lease(), "kept inline and committed at once");
        return r;
    }

    private ScanReply scan(String from, boolean after, int limit) {
        return scans.scan(new ScanRequest("/t", from, after, limit));
    }

    private static List<String> names(ScanReply r) {
        return r.entries().stream().map(ScanReply.Entry::name).toList();
    }

    /** Every key from the start, page by page of {@code page} keys. */
    private List<String> all(int page) {
        List<String> out = new ArrayList<>();
        String from = "";
        boolean after = false;
        while (true) {
            ScanReply r = scan(from, after, page);
            out.addAll(names(r));
            if (!r.more()) {
                return out;
            }
            assertEquals(page, r.entries().size(), "a page short of its limit says it is the last unless its bytes ran out");
            from = out.get(out.size() - 1);
            after = true;
        }
    }

    @Test
    void keysComeBackInByteOrderWhateverOrderTheyWereCreatedIn() {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            keys.add("user" + i);
        }
        keys.addAll(List.of("A", "a", "Z", "z", "0", "~", "é", "日本", "\uD83D\uDE00", "ab", "aa", "a b"));
        Collections.shuffle(keys, new Random(7));
        for (String k : keys) {
            put("/t/" + k, "v-" + k);
        }
        List<String> expected = new ArrayList<>(keys);
        expected.sort((x, y) -> Arrays.compareUnsigned(x.getBytes(StandardCharsets.UTF_8),
                y.getBytes(StandardCharsets.UTF_8)));
        assertEquals(expected, all(1000));
        assertEquals(expected, all(7), "paged through 7 keys at a time, nothing lost or repeated");
        for (ScanReply.Entry e : scan("", false, 1000).entries()) {
            assertArrayEquals(("v-" + e.name()).getBytes(StandardCharsets.UTF_8), e.data(), "each key with its own value");
            assertEquals(NodeType.KEYVALUE, e.node().type());
            assertEquals(e.data().length, e.node().length());
        }
    }

    @Test
    void aScanStartsAtItsKeyOrJustAfterItAndAtTheNextKeyWhenItsKeyIsMissing() {
        for (String k : List.of("b", "d", "f", "h")) {
            put("/t/" + k, k);
        }
        assertEquals(List.of("d", "f"), names(scan("d", false, 2)), "from d, inclusive");
        assertEquals(List.of("f", "h"), names(scan("d", true, 2)), "after d");
        assertEquals(List.of("f", "h"), names(scan("e", false, 10)), "e is no key: from the next one");
        assertEquals(List.of("b"), names(scan("", false, 1)));
        assertTrue(scan("", false, 1).more());
        assertFalse(scan("h", false, 1).more(), "h is the last key");
        assertEquals(List.of(), names(scan("h", true, 5)));
        assertFalse(scan("h", true, 5).more());
        assertEquals(List.of(), names(scan("zzz", false, 5)));
    }

    @Test
    void replacementsKeepOneEntryPerKeyWithTheNewValueAndRemovalsTakeTheKeyOut() {
        for (String k : List.of("k1", "k2", "k3", "k4")) {
            put("/t/" + k, "old");
        }
        long oldId = f.lookup("/t/k2").node().id();
        put("/t/k2", "new value");
        Expect.done(ns.remove("/t/k3", false));
        ScanReply r = scan("", false, 10);
        assertEquals(List.of("k1", "k2", "k4"), names(r));
        ScanReply.Entry k2 = r.entries().get(1);
        assertNotEquals(oldId, k2.node().id(), "the new version");
        assertArrayEquals("new value".getBytes(StandardCharsets.UTF_8), k2.data());
        put("/t/k3", "back");
        assertEquals(List.of("k1", "k2", "k3", "k4"), names(scan("", false, 10)));
    }

    @Test
    void anUncommittedVersionIsNotScannedUntilItsCommit() {
        put("/t/a", "a");
        OpenReply w = Expect.done(ns.create(new CreateRequest("/t/b", NodeType.KEYVALUE, "", "", true), CONN));
        assertEquals(List.of("a"), names(scan("", false, 10)), "b is written, not committed");
        f.commit(w, 100, true);
        ScanReply r = scan("", false, 10);
        assertEquals(List.of("a", "b"), names(r));
        assertNull(r.entries().get(1).data(), "b is in a block: the reader reads it from there");
        assertEquals(100, r.entries().get(1).node().length());
        assertEquals(w.node().id(), r.entries().get(1).node().id());
    }

    @Test
    void aMovedKeyIsScannedUnderItsNewNameAndInItsNewTable() {
        createTable("/u", true);
        for (String k : List.of("a", "m", "z")) {
            put("/t/" + k, k);
        }
        Expect.done(ns.move("/t/m", "/t/b"));
        assertEquals(List.of("a", "b", "z"), names(scan("", false, 10)));
        Expect.done(ns.move("/t/z", "/u/y"));
        assertEquals(List.of("a", "b"), names(scan("", false, 10)));
        assertEquals(List.of("y"), names(scans.scan(new ScanRequest("/u", "", false, 10))));
    }

    @Test
    void aReplyStopsAtItsByteBudgetAndSaysMoreFollow() {
        TableScans small = new TableScans(ns, 64 << 10); // a 32 KiB budget
        String value = "x".repeat(4000);
        for (int i = 0; i < 20; i++) {
            put(String.format("/t/k%02d", i), value);
        }
        ScanReply first = small.scan(new ScanRequest("/t", "", false, 20));
        assertTrue(first.entries().size() < 20 && first.entries().size() >= 7, "about 32 KiB of 4 KB values: "
                + first.entries().size());
        assertTrue(first.more());
        List<String> got = new ArrayList<>(names(first));
        while (got.size() < 20) {
            ScanReply next = small.scan(new ScanRequest("/t", got.get(got.size() - 1), true, 20));
            assertFalse(next.entries().isEmpty());
            got.addAll(names(next));
        }
        assertEquals(20, got.size());
        assertEquals("k19", got.get(19));
    }

    @Test
    void aTableCreatedWithoutOrderCannotBeScannedAndTheErrorSaysHowToGetOne() {
        createTable("/plain", false);
        put("/plain/k", "v");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> scans.scan(new ScanRequest("/plain", "", false, 10)),
                "/plain", "keeps no key order", "create it ordered", "--ordered");
        f.create("/d", NodeType.DIRECTORY);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> scans.scan(new ScanRequest("/d", "", false, 10)),
                "/d is a Directory", "Table created ordered");
        Expect.error(ErrorCode.NOT_FOUND, () -> scans.scan(new ScanRequest("/missing", "", false, 10)), "/missing");
        Expect.error(ErrorCode.INVALID_NAME, () -> scans.scan(new ScanRequest("/t", "a/b", false, 10)),
                "/t/a/b", "must not contain '/'");
    }

    @Test
    void onlyATableCanBeCreatedOrdered() {
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.create(new CreateRequest("/d", NodeType.DIRECTORY, "", "",
                true, null, 0, Expiry.NONE, true), CONN), "/d", "only a Table can be created ordered", "Directory");
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> ns.create(new CreateRequest("/t/k", NodeType.KEYVALUE, "", "",
                true, new byte[1], 0, Expiry.NONE, true), CONN), "only a Table");
    }

    @Test
    void aRemovedTableTakesItsOrderAlongAndANewOneOfThatNameIsWhatItsCreateSays() {
        put("/t/a", "a");
        Expect.done(ns.remove("/t", true));
        createTable("/t", false);
        Expect.error(ErrorCode.INVALID_ARGUMENT, () -> scan("", false, 1), "keeps no key order");
    }

    @Test
    void manyKeysStayInOrderThroughInterleavedCreatesAndRemovals() {
        Random random = new Random(11);
        TreeMap<String, String> model = new TreeMap<>();
        for (int i = 0; i < 3000; i++) {
            String k = "key" + random.nextInt(800);
            if (random.nextInt(3) == 0 && model.containsKey(k)) {
                Expect.done(ns.remove("/t/" + k, false));
                model.remove(k);
            } else {
                String v = "v" + i;
                put("/t/" + k, v);
                model.put(k, v);
            }
        }
        // ASCII keys: String order is byte order.
        assertEquals(new ArrayList<>(model.keySet()), all(97));
        for (ScanReply.Entry e : scan("key5", false, 50).entries()) {
            assertEquals(model.get(e.name()), new String(e.data(), StandardCharsets.UTF_8));
        }
    }
}
