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

    private static RedisHashDB open(String port) throws DBException {
        Properties p = new Properties();
        p.setProperty(RedisHashDB.PORT, port);
        p.setProperty(RedisHashDB.TIMEOUT, "2000");
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
    void anUnreachableServerStopsInitWithItsAddress() {
        DBException e = assertThrows(DBException.class, () -> open("1"));
        assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
        DBException bad = assertThrows(DBException.class, () -> open("six"));
        assertTrue(bad.getMessage().contains("must be integers"), bad.getMessage());
    }
}
