package io.creel.ycsb.redis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.creel.bench.baseline.RedisServer;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DBException;
import site.ycsb.Status;
import site.ycsb.StringByteIterator;

/**
 * The comparison DB against a private redis-server (skipped, saying so, where none is installed; a
 * failure instead with CREEL_REDIS_REQUIRED=1, as in CI).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedisHashDBTest {
    private static RedisServer redis;
    private RedisHashDB db;

    @BeforeAll
    static void startRedis() throws IOException {
        Optional<Path> exe = RedisServer.find();
        String missing = "redis-server is not installed (apt-get install redis-server)";
        // CI installs redis-server and sets CREEL_REDIS_REQUIRED=1: there a missing one is a failure, not a skip.
        assertTrue(exe.isPresent() || !"1".equals(System.getenv("CREEL_REDIS_REQUIRED")),
                missing + " (required here: CREEL_REDIS_REQUIRED=1)");
        assumeTrue(exe.isPresent(), missing + ": skipped");
        redis = RedisServer.start(exe.get());
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void open() throws DBException {
        db = open(Integer.toString(redis.port()));
    }

    @AfterEach
    void close() {
        db.cleanup();
    }

    private static RedisHashDB open(String port, String... extra) throws DBException {
        Properties p = new Properties();
        p.setProperty(RedisHashDB.PORT, port);
        p.setProperty(RedisHashDB.TIMEOUT, "2000");
        for (int i = 0; i < extra.length; i += 2) {
            p.setProperty(extra[i], extra[i + 1]);
        }
        RedisHashDB db = new RedisHashDB();
        db.setProperties(p);
        db.init();
        return db;
    }

    private static Map<String, ByteIterator> record(String... nameValue) {
        Map<String, ByteIterator> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) {
            m.put(nameValue[i], new StringByteIterator(nameValue[i + 1]));
        }
        return m;
    }

    private Map<String, String> read(String key, Set<String> fields) {
        Map<String, ByteIterator> out = new HashMap<>();
        Status s = db.read("usertable", key, fields, out);
        Map<String, String> strings = new HashMap<>();
        out.forEach((k, v) -> strings.put(k, v.toString()));
        if (!s.isOk()) {
            strings.put("<status>", s.getName());
        }
        return strings;
    }

    @Test
    void aRecordIsAHashOfItsFields() {
        assertEquals(Status.OK, db.insert("usertable", "r1", record("field0", "a", "field1", "b")));
        assertEquals(Map.of("field0", "a", "field1", "b"), read("r1", null));
        assertEquals(Map.of("field1", "b"), read("r1", Set.of("field1", "field7")));
    }

    @Test
    void anUpdateChangesTheNamedFieldsOnly() {
        db.insert("usertable", "r2", record("field0", "a", "field1", "b"));
        assertEquals(Status.OK, db.update("usertable", "r2", record("field1", "B")));
        assertEquals(Map.of("field0", "a", "field1", "B"), read("r2", null));
    }

    @Test
    void binaryValuesSurvive() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        db.insert("usertable", "r3", Map.of("bin", new ByteArrayByteIterator(all)));
        Map<String, ByteIterator> out = new HashMap<>();
        assertEquals(Status.OK, db.read("usertable", "r3", null, out));
        assertArrayEquals(all, out.get("bin").toArray());
    }

    @Test
    void missingKeysAreNotFoundAndDeletesRemove() {
        assertEquals(Map.of("<status>", "NOT_FOUND"), read("nobody", null));
        assertEquals(Status.NOT_FOUND, db.delete("usertable", "nobody"));
        db.insert("usertable", "r4", record("f", "v"));
        assertEquals(Status.OK, db.delete("usertable", "r4"));
        assertEquals(Map.of("<status>", "NOT_FOUND"), read("r4", null));
        assertEquals(Status.NOT_IMPLEMENTED, db.scan("usertable", "r", 5, null, new Vector<>()));
    }

    @Test
    void withTheIndexInsertsAndDeletesKeepTheSortedSetAndAScanReadsFromTheStartKeysScore() throws DBException {
        RedisHashDB indexed = open(Integer.toString(redis.port()), "scanproportion", "0.95"); // auto: indexed
        try (redis.clients.jedis.Jedis check = new redis.clients.jedis.Jedis("127.0.0.1", redis.port())) {
            check.del(RedisHashDB.INDEX_KEY);
            for (int i = 0; i < 20; i++) {
                assertEquals(Status.OK, indexed.insert("usertable", "s" + i, record("f", "v" + i, "g", "w" + i)));
            }
            assertEquals(20, check.zcard(RedisHashDB.INDEX_KEY), "every insert added its key to the index");
            assertEquals(Status.OK, indexed.delete("usertable", "s3"));
            assertEquals(19, check.zcard(RedisHashDB.INDEX_KEY), "a delete takes it out");
            assertEquals(Status.OK, indexed.update("usertable", "s4", record("f", "changed")));
            assertEquals(19, check.zcard(RedisHashDB.INDEX_KEY), "an update does not touch the index");
            // The index orders by the key's hash: a scan from s7 gets s7 and the keys scored above it.
            java.util.List<String> byScore = check.zrangeByScore(RedisHashDB.INDEX_KEY, "s7".hashCode(),
                    Double.POSITIVE_INFINITY, 0, 4);
            Vector<HashMap<String, ByteIterator>> out = new Vector<>();
            assertEquals(Status.OK, indexed.scan("usertable", "s7", 4, null, out));
            assertEquals(byScore.size(), out.size());
            assertEquals("s7", byScore.get(0));
            for (int i = 0; i < out.size(); i++) {
                int n = Integer.parseInt(byScore.get(i).substring(1));
                assertEquals((n == 4 ? "changed" : "v" + n), out.get(i).get("f").toString(), byScore.get(i));
            }
            Vector<HashMap<String, ByteIterator>> some = new Vector<>();
            assertEquals(Status.OK, indexed.scan("usertable", "s7", 2, Set.of("g"), some));
            assertEquals(Set.of("g"), some.get(0).keySet());
            assertEquals("w7", some.get(0).get("g").toString());
            check.del(RedisHashDB.INDEX_KEY);
        } finally {
            indexed.cleanup();
        }
    }

    @Test
    void withoutTheIndexInsertsAreOneCommandAndAScanIsNotImplemented() throws DBException {
        try (redis.clients.jedis.Jedis check = new redis.clients.jedis.Jedis("127.0.0.1", redis.port())) {
            check.del(RedisHashDB.INDEX_KEY);
            db.insert("usertable", "plain", record("f", "v"));
            assertEquals(0, check.zcard(RedisHashDB.INDEX_KEY), "a workload that does not scan keeps no index");
        }
        DBException bad = assertThrows(DBException.class, () -> open(Integer.toString(redis.port()),
                RedisHashDB.INDEX, "sometimes"));
        assertTrue(bad.getMessage().contains(RedisHashDB.INDEX), bad.getMessage());
    }

    @Test
    void anUnreachableServerStopsInitWithItsAddress() {
        DBException e = assertThrows(DBException.class, () -> open("1"));
        assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
        DBException bad = assertThrows(DBException.class, () -> open("six"));
        assertTrue(bad.getMessage().contains("must be integers"), bad.getMessage());
    }
}
