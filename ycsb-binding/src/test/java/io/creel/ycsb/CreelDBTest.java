package io.creel.ycsb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectoryEntry;
import io.creel.common.namespace.NodeType;
import io.creel.minicluster.MiniCluster;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/** The binding's operations against an in-JVM cluster, as YCSB's threads call them. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CreelDBTest {
    private static MiniCluster cluster;
    private static CreelClient admin;
    private final List<CreelDB> opened = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        cluster = TestCluster.start();
        admin = CreelClient.connect(cluster.clientConf());
    }

    @AfterAll
    static void stopCluster() {
        admin.close();
        cluster.close();
    }

    @AfterEach
    void closeDbs() throws DBException {
        for (CreelDB db : opened) {
            db.cleanup();
        }
    }

    /** A started DB with the cluster's address and {@code extra} properties. */
    private CreelDB db(String... extra) throws DBException {
        Properties p = TestCluster.properties(cluster);
        for (int i = 0; i < extra.length; i += 2) {
            p.setProperty(extra[i], extra[i + 1]);
        }
        CreelDB db = new CreelDB();
        db.setProperties(p);
        db.init();
        opened.add(db);
        return db;
    }

    private static Map<String, ByteIterator> record(String... nameValue) {
        Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put(nameValue[i], new StringByteIterator(nameValue[i + 1]));
        }
        return m;
    }

    private static Map<String, String> read(CreelDB db, String table, String key, Set<String> fields) {
        Map<String, ByteIterator> out = new HashMap<>();
        Status s = db.read(table, key, fields, out);
        Map<String, String> strings = new HashMap<>();
        out.forEach((k, v) -> strings.put(k, v.toString()));
        if (!s.isOk()) {
            assertTrue(out.isEmpty(), "a failed read hands out no fields");
            strings.put("<status>", s.getName());
        }
        return strings;
    }

    @Test
    void anInsertedRecordReadsBackWithAllItsFields() throws DBException {
        CreelDB db = db("table", "t_insert");
        assertEquals(Status.OK, db.insert("t_insert", "user1", record("field0", "a", "field1", "bb", "field2", "")));
        assertEquals(Map.of("field0", "a", "field1", "bb", "field2", ""), read(db, "t_insert", "user1", null));
    }

    @Test
    void aReadOfSomeFieldsHandsOutOnlyThose() throws DBException {
        CreelDB db = db("table", "t_subset");
        db.insert("t_subset", "k", record("field0", "zero", "field1", "one", "field2", "two"));
        assertEquals(Map.of("field1", "one"), read(db, "t_subset", "k", Set.of("field1")));
        assertEquals(Map.of("field0", "zero", "field2", "two"), read(db, "t_subset", "k", Set.of("field0", "field2",
                "field9")));
    }

    @Test
    void aMissingKeyIsNotFoundForReadUpdateAndDeleteAndAnUpdateCreatesNothing() throws DBException {
        CreelDB db = db("table", "t_missing");
        assertEquals(Map.of("<status>", "NOT_FOUND"), read(db, "t_missing", "nobody", null));
        assertEquals(Status.NOT_FOUND, db.update("t_missing", "nobody", record("field0", "x")));
        assertEquals(Map.of("<status>", "NOT_FOUND"), read(db, "t_missing", "nobody", null));
        assertEquals(Status.NOT_FOUND, db.delete("t_missing", "nobody"));
    }

    @Test
    void anUpdateChangesOnlyTheNamedFieldsAndMayAddOne() throws DBException {
        CreelDB db = db("table", "t_update");
        db.insert("t_update", "k", record("field0", "zero", "field1", "one", "field2", "two"));
        assertEquals(Status.OK, db.update("t_update", "k", record("field1", "ONE", "field3", "three")));
        assertEquals(Map.of("field0", "zero", "field1", "ONE", "field2", "two", "field3", "three"),
                read(db, "t_update", "k", null));
    }

    @Test
    void anInsertOfAnExistingKeyReplacesTheWholeRecord() throws DBException {
        CreelDB db = db("table", "t_replace");
        db.insert("t_replace", "k", record("field0", "old", "field1", "old"));
        assertEquals(Status.OK, db.insert("t_replace", "k", record("field0", "new")));
        assertEquals(Map.of("field0", "new"), read(db, "t_replace", "k", null));
    }

    @Test
    void aDeletedRecordIsGone() throws DBException {
        CreelDB db = db("table", "t_delete");
        db.insert("t_delete", "k", record("field0", "x"));
        assertEquals(Status.OK, db.delete("t_delete", "k"));
        assertEquals(Map.of("<status>", "NOT_FOUND"), read(db, "t_delete", "k", null));
        assertEquals(Status.NOT_FOUND, db.delete("t_delete", "k"));
    }

    @Test
    void oneMebibyteRecordsAreWrittenReadAndUpdatedWhole() throws DBException {
        CreelDB db = db("table", "t_large");
        Random random = new Random(42);
        byte[] big = new byte[1 << 20];
        random.nextBytes(big);
        byte[] small = new byte[100];
        random.nextBytes(small);
        Map<String, ByteIterator> r = new LinkedHashMap<>();
        r.put("field0", new ByteArrayByteIterator(big));
        r.put("field1", new ByteArrayByteIterator(small));
        assertEquals(Status.OK, db.insert("t_large", "big", r));

        Map<String, ByteIterator> out = new HashMap<>();
        assertEquals(Status.OK, db.read("t_large", "big", null, out));
        assertArrayEquals(big, out.get("field0").toArray());
        assertArrayEquals(small, out.get("field1").toArray());

        byte[] big2 = new byte[1 << 20];
        random.nextBytes(big2);
        assertEquals(Status.OK, db.update("t_large", "big", Map.of("field1",
                new ByteArrayByteIterator(big2))));
        out.clear();
        assertEquals(Status.OK, db.read("t_large", "big", null, out));
        assertArrayEquals(big, out.get("field0").toArray());
        assertArrayEquals(big2, out.get("field1").toArray());
        assertTrue(admin.lookup("/t_large/big").join().length() > 2 * (1 << 20), "two 1 MiB fields in one value");
    }

    /** A scan's records as field maps of strings. */
    private static List<Map<String, String>> scan(CreelDB db, String table, String start, int n, Set<String> fields) {
        Vector<HashMap<String, ByteIterator>> out = new Vector<>();
        assertEquals(Status.OK, db.scan(table, start, n, fields, out));
        List<Map<String, String>> strings = new ArrayList<>();
        for (HashMap<String, ByteIterator> r : out) {
            Map<String, String> m = new HashMap<>();
            r.forEach((k, v) -> m.put(k, v.toString()));
            strings.add(m);
        }
        return strings;
    }

    @Test
    void aScanReadsRecordsInKeyOrderFromTheStartKeyWithTheirFieldsWhenTheWorkloadScans() throws DBException {
        CreelDB db = db("table", "t_scan", "scanproportion", "0.95"); // creel.ycsb.table.ordered = auto: ordered
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            order.add(i);
        }
        java.util.Collections.shuffle(order, new Random(3));
        for (int i : order) {
            // user7's record is larger than the namenode keeps inline: it is read from its block.
            String big = i == 7 ? "x".repeat(10_000) : "b" + i;
            assertEquals(Status.OK, db.insert("t_scan", "user" + i, record("a", "a" + i, "b", big)));
        }
        // Key order is byte order: user1, user10, ..., user19, user2, user20, ...
        List<Map<String, String>> got = scan(db, "t_scan", "user10", 5, null);
        assertEquals(List.of(Map.of("a", "a10", "b", "b10"), Map.of("a", "a11", "b", "b11"),
                Map.of("a", "a12", "b", "b12"), Map.of("a", "a13", "b", "b13"), Map.of("a", "a14", "b", "b14")), got);
        assertEquals(List.of(Map.of("a", "a6"), Map.of("a", "a7"), Map.of("a", "a8")),
                scan(db, "t_scan", "user6", 3, Set.of("a")), "only the named fields");
        assertEquals("x".repeat(10_000), scan(db, "t_scan", "user7", 1, null).get(0).get("b"));
        assertEquals(List.of(Map.of("a", "a9", "b", "b9")), scan(db, "t_scan", "user9", 100, null),
                "a scan ends with the table");
        assertEquals(Status.OK, db.delete("t_scan", "user11"));
        assertEquals(List.of("a10", "a12"), scan(db, "t_scan", "user10", 2, null).stream().map(r -> r.get("a"))
                .toList());
    }

    @Test
    void aScanOfATableMadeForAWorkloadThatDoesNotScanIsAnErrorThatSaysWhatToSet() throws DBException {
        CreelDB db = db("table", "t_noscan"); // no scanproportion: auto makes it unordered
        db.insert("t_noscan", "user1", record("a", "1"));
        Vector<HashMap<String, ByteIterator>> out = new Vector<>();
        assertEquals(Status.ERROR, db.scan("t_noscan", "user1", 10, null, out));
        assertTrue(out.isEmpty());
        assertEquals(1L, db.shared().failures().counts().get("INVALID_ARGUMENT"));
        CreelDB ordered = db("table", "t_forced", "creel.ycsb.table.ordered", "true");
        ordered.insert("t_forced", "k", record("a", "1"));
        assertEquals(1, scan(ordered, "t_forced", "", 10, null).size(), "ordered on request, whatever the workload");
        CreelDB unordered = db("table", "t_refused", "creel.ycsb.table.ordered", "false", "scanproportion", "0.5");
        assertEquals(Status.ERROR, unordered.scan("t_refused", "", 10, null, new Vector<>()));
        DBException bad = assertThrows(DBException.class, () -> db("table", "t_bad", "creel.ycsb.table.ordered",
                "maybe"));
        assertTrue(bad.getMessage().contains("creel.ycsb.table.ordered"), bad.getMessage());
    }

    @Test
    void tablesAreMadeNonEnumerableByDefaultAndEnumerableOnRequest() throws DBException {
        db("table", "t_plain");
        CreelNode plain = admin.lookup("/t_plain").join();
        assertEquals(NodeType.TABLE, plain.type());
        assertFalse(plain.info().enumerable());
        assertEquals(java.time.Duration.ofHours(1).toMillis(), plain.info().expiry().graceMillis(),
                "YCSB's tables are scratch data: they go an hour after the process that made them");

        CreelDB listed = db("table", "t_listed", "creel.ycsb.table.enumerable", "true", "creel.ycsb.ttl", "0");
        assertEquals(null, admin.lookup("/t_listed").join().info().expiry(), "a time to live of 0 keeps them");
        listed.insert("t_listed", "a", record("f", "1"));
        listed.insert("t_listed", "b", record("f", "2"));
        assertEquals(Set.of("a", "b"), Set.copyOf(admin.list("/t_listed").join().stream().map(DirectoryEntry::name)
                .toList()));
    }

    @Test
    void theRootAndStorageClassAreHonoured() throws DBException {
        CreelDB db = db("table", "t_rooted", "creel.ycsb.root", "/ycsb-test/nested", "creel.ycsb.storage.class",
                "disk");
        CreelNode table = admin.lookup("/ycsb-test/nested/t_rooted").join();
        assertEquals(NodeType.TABLE, table.type());
        assertEquals("disk", table.info().storageClass());
        assertEquals(Status.OK, db.insert("t_rooted", "k", record("f", "v")));
        assertEquals(Map.of("f", "v"), read(db, "t_rooted", "k", null));
        assertEquals(NodeType.KEYVALUE, admin.lookup("/ycsb-test/nested/t_rooted/k").join().type());
    }

    @Test
    void threadsOfOneProcessShareOneClientUntilTheLastLetsGo() throws Exception {
        CreelDB a = db("table", "t_shared");
        CreelDB b = db("table", "t_shared");
        assertSame(a.shared(), b.shared());
        CreelDB other = db("table", "t_shared", "creel.ycsb.table.enumerable", "true");
        assertNotSame(a.shared(), other.shared(), "another configuration gets its own client");

        SharedState shared = a.shared();
        a.cleanup();
        opened.remove(a);
        assertEquals(Status.OK, b.insert("t_shared", "k", record("f", "v")), "b's client is still open");
        b.cleanup();
        opened.remove(b);
        assertTrue(shared.client().getValue("/t_shared", "k").handle((v, t) -> t != null).get(10, TimeUnit.SECONDS),
                "the last cleanup closed the shared client");
    }

    @Test
    void aValueThatIsNotARecordIsAnErrorLoggedOncePerKind() throws DBException {
        CreelDB db = db("table", "t_foreign");
        admin.putValue("/t_foreign", "raw", ByteBuffer.wrap("written by kv put".getBytes(StandardCharsets.UTF_8)))
                .join();
        assertEquals(Map.of("<status>", "ERROR"), read(db, "t_foreign", "raw", null));
        assertEquals(Status.ERROR, db.update("t_foreign", "raw", record("f", "v")));
        assertEquals(2L, db.shared().failures().counts().get("MalformedRecordException"));
    }

    @Test
    void aKeyCreelCannotNameIsABadRequest() throws DBException {
        CreelDB db = db("table", "t_names");
        assertEquals(Status.BAD_REQUEST, db.insert("t_names", "a/b", record("f", "v")));
        assertEquals(Status.BAD_REQUEST, db.insert("t_names", "..", record("f", "v")));
        assertEquals(Status.BAD_REQUEST, db.insert("t_names", "k".repeat(300), record("f", "v")));
        assertEquals(Map.of("<status>", "BAD_REQUEST"), read(db, "t_names", "a/b", null));
    }

    @Test
    void aTablePathHeldByAnotherKindOfNodeStopsInitWithItsName() {
        admin.create("/t_is_a_dir", NodeType.DIRECTORY).join();
        DBException e = assertThrows(DBException.class, () -> db("table", "t_is_a_dir"));
        assertTrue(e.getMessage().contains("/t_is_a_dir is a Directory"), e.getMessage());
    }

    @Test
    void anUnknownCreelPropertyStopsInitWithTheKeyNamed() {
        DBException e = assertThrows(DBException.class, () -> db("creel.ycsb.tabel.enumerable", "true"));
        assertTrue(e.getMessage().contains("creel.ycsb.tabel.enumerable"), e.getMessage());
        assertTrue(e.getMessage().contains("did you mean 'creel.ycsb.table.enumerable'"), e.getMessage());
    }

    @Test
    void anUnknownStorageClassStopsInitWithTheKeyNamed() {
        DBException e = assertThrows(DBException.class, () -> db("creel.ycsb.storage.class", "tape"));
        assertTrue(e.getMessage().contains("creel.ycsb.storage.class = 'tape'"), e.getMessage());
    }

    @Test
    void aClusterThatCannotBeReachedStopsInitWithItsAddress() {
        DBException e = assertThrows(DBException.class, () -> db("creel.namenode.address", "creel://127.0.0.1:1"));
        assertTrue(e.getMessage().contains("creel://127.0.0.1:1"), e.getMessage());
    }

    @Test
    void aClusterThatGoesAwayTurnsEveryOperationIntoAnErrorNotAnException() throws DBException {
        MiniCluster doomed = TestCluster.start();
        Properties p = TestCluster.properties(doomed);
        p.setProperty("table", "t_doomed");
        CreelDB db = new CreelDB();
        db.setProperties(p);
        db.init();
        try {
            assertEquals(Status.OK, db.insert("t_doomed", "k", record("f", "v")));
            doomed.close();
            assertEquals(Map.of("<status>", "ERROR"), read(db, "t_doomed", "k", null));
            assertEquals(Status.ERROR, db.insert("t_doomed", "k2", record("f", "v")));
            assertEquals(Status.ERROR, db.update("t_doomed", "k", record("f", "w")));
            assertEquals(Status.ERROR, db.delete("t_doomed", "k"));
            Map<String, Long> counts = db.shared().failures().counts();
            assertEquals(4L, counts.values().stream().mapToLong(Long::longValue).sum(), counts.toString());
        } finally {
            db.cleanup();
        }
    }
}
