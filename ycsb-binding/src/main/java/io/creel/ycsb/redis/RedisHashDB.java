package io.creel.ycsb.redis;

import io.creel.ycsb.FailureLog;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import org.slf4j.LoggerFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisException;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * The Redis side of the comparison ({@code -db io.creel.ycsb.redis.RedisHashDB}): a record is a
 * Redis hash of its fields under the record's key, as YCSB's own Redis binding stores it (that
 * binding is not published to Maven Central). One connection per YCSB thread, one command per
 * operation: {@code HSET} for insert and update (an update of a missing key creates it, as in
 * YCSB's binding), {@code HGETALL} or {@code HMGET} for read, {@code DEL} for delete. The table
 * name is not part of the key (as in YCSB's binding).
 *
 * <p><b>Scans</b> need the index YCSB's binding keeps: a sorted set {@value #INDEX_KEY} holding every
 * key, scored by the key's {@link String#hashCode()}. With the index ({@value #INDEX}), an insert also
 * adds its key to it ({@code ZADD}) and a delete takes it out ({@code ZREM}), each in one pipeline
 * with the record's own command: Redis pays the index's work on every insert, in the same round trip
 * (YCSB's binding waits for each command; this is the kinder way for Redis). A scan is a
 * {@code ZRANGEBYSCORE} from the start key's score for {@code recordcount} keys, then their records,
 * all in one pipeline: two round trips. The order is the index's (hash order, as in YCSB's binding),
 * not key order. {@value #INDEX} is {@code auto} by default: on when the workload scans
 * ({@code scanproportion > 0}, as in workload E), as the Creel binding orders its Tables; without
 * the index a scan is {@code NOT_IMPLEMENTED}.
 *
 * <p>Properties: {@value #HOST} (default 127.0.0.1), {@value #PORT} (6379), {@value #TIMEOUT}
 * (connect and socket timeout in ms, 2000), {@value #INDEX} ({@code auto}, {@code true},
 * {@code false}).
 */
public final class RedisHashDB extends DB {
    public static final String HOST = "redis.host";
    public static final String PORT = "redis.port";
    public static final String TIMEOUT = "redis.timeout";
    /** Whether inserts keep the scan index: {@code true}, {@code false}, or {@code auto} (when the workload scans). */
    public static final String INDEX = "redis.index";
    /** The sorted set of every key, as YCSB's Redis binding names it. */
    public static final String INDEX_KEY = "_indices";
    private static final byte[] INDEX_BYTES = INDEX_KEY.getBytes(StandardCharsets.UTF_8);

    private static final FailureLog FAILURES = new FailureLog(LoggerFactory.getLogger(RedisHashDB.class));

    private Jedis jedis;
    private boolean indexed;

    @Override
    public void init() throws DBException {
        String host = getProperties().getProperty(HOST, "127.0.0.1");
        String port = getProperties().getProperty(PORT, "6379");
        String timeout = getProperties().getProperty(TIMEOUT, "2000");
        indexed = indexed(getProperties().getProperty(INDEX, "auto"), getProperties().getProperty("scanproportion", "0"));
        try {
            jedis = new Jedis(host, Integer.parseInt(port.trim()), Integer.parseInt(timeout.trim()));
            jedis.ping();
        } catch (NumberFormatException e) {
            throw new DBException("Redis binding: " + PORT + " and " + TIMEOUT + " must be integers, got '" + port
                    + "' and '" + timeout + "'", e);
        } catch (JedisException e) {
            close();
            throw new DBException("Redis binding: cannot reach redis at " + host + ":" + port + ": " + e.getMessage(),
                    e);
        }
    }

    /** Whether to keep the index: as {@value #INDEX} says, or with {@code auto} when the workload scans. */
    static boolean indexed(String setting, String scanProportion) throws DBException {
        switch (setting.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true":
                return true;
            case "false":
                return false;
            case "auto":
                try {
                    return Double.parseDouble(scanProportion.trim()) > 0;
                } catch (NumberFormatException e) {
                    throw new DBException("Redis binding: scanproportion = '" + scanProportion + "' is not a number", e);
                }
            default:
                throw new DBException("Redis binding: " + INDEX + " must be true, false or auto, not '" + setting + "'");
        }
    }

    @Override
    public void cleanup() {
        close();
    }

    private void close() {
        if (jedis != null) {
            try {
                jedis.close();
            } catch (JedisException e) {
                FAILURES.failed("close", "-", "-", e);
            }
            jedis = null;
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            byte[] k = bytes(key);
            if (fields == null) {
                Map<byte[], byte[]> all = jedis.hgetAll(k);
                for (Map.Entry<byte[], byte[]> e : all.entrySet()) {
                    result.put(new String(e.getKey(), StandardCharsets.UTF_8), new ByteArrayByteIterator(e.getValue()));
                }
            } else {
                byte[][] names = new byte[fields.size()][];
                int i = 0;
                for (String f : fields) {
                    names[i++] = bytes(f);
                }
                List<byte[]> values = jedis.hmget(k, names);
                Iterator<String> name = fields.iterator();
                for (byte[] v : values) {
                    String n = name.next();
                    if (v != null) {
                        result.put(n, new ByteArrayByteIterator(v));
                    }
                }
            }
            return result.isEmpty() ? Status.NOT_FOUND : Status.OK;
        } catch (JedisException e) {
            FAILURES.failed("read", table, key, e);
            return Status.ERROR;
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        return write("insert", table, key, values);
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        return write("update", table, key, values);
    }

    private Status write(String operation, String table, String key, Map<String, ByteIterator> values) {
        try {
            Map<byte[], byte[]> hash = new HashMap<>(values.size() * 2);
            for (Map.Entry<String, ByteIterator> e : values.entrySet()) {
                hash.put(bytes(e.getKey()), e.getValue().toArray());
            }
            byte[] k = bytes(key);
            if (indexed && operation.equals("insert")) {
                try (Pipeline p = jedis.pipelined()) {
                    p.hset(k, hash);
                    p.zadd(INDEX_BYTES, key.hashCode(), k);
                }
            } else {
                jedis.hset(k, hash);
            }
            return Status.OK;
        } catch (JedisException e) {
            FAILURES.failed(operation, table, key, e);
            return Status.ERROR;
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            byte[] k = bytes(key);
            if (!indexed) {
                return jedis.del(k) == 0 ? Status.NOT_FOUND : Status.OK;
            }
            Response<Long> deleted;
            try (Pipeline p = jedis.pipelined()) {
                deleted = p.del(k);
                p.zrem(INDEX_BYTES, k);
            }
            return deleted.get() == 0 ? Status.NOT_FOUND : Status.OK;
        } catch (JedisException e) {
            FAILURES.failed("delete", table, key, e);
            return Status.ERROR;
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        if (!indexed) {
            FAILURES.unsupported("scan", "this DB keeps no key index unless " + INDEX + " is true (or auto and the "
                    + "workload scans), so it cannot scan");
            return Status.NOT_IMPLEMENTED;
        }
        try {
            List<byte[]> keys = jedis.zrangeByScore(INDEX_BYTES, startkey.hashCode(), Double.POSITIVE_INFINITY, 0,
                    recordcount);
            byte[][] names = fields == null ? null : fields.stream().map(RedisHashDB::bytes).toArray(byte[][]::new);
            List<Response<Map<byte[], byte[]>>> all = new java.util.ArrayList<>(keys.size());
            List<Response<List<byte[]>>> some = new java.util.ArrayList<>(keys.size());
            try (Pipeline p = jedis.pipelined()) {
                for (byte[] k : keys) {
                    if (names == null) {
                        all.add(p.hgetAll(k));
                    } else {
                        some.add(p.hmget(k, names));
                    }
                }
            }
            for (Response<Map<byte[], byte[]>> r : all) {
                HashMap<String, ByteIterator> record = new HashMap<>();
                r.get().forEach((n, v) -> record.put(new String(n, StandardCharsets.UTF_8), new ByteArrayByteIterator(v)));
                result.add(record);
            }
            for (Response<List<byte[]>> r : some) {
                HashMap<String, ByteIterator> record = new HashMap<>();
                Iterator<String> name = fields.iterator();
                for (byte[] v : r.get()) {
                    String n = name.next();
                    if (v != null) {
                        record.put(n, new ByteArrayByteIterator(v));
                    }
                }
                result.add(record);
            }
            return Status.OK;
        } catch (JedisException e) {
            result.clear();
            FAILURES.failed("scan", table, startkey, e);
            return Status.ERROR;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
