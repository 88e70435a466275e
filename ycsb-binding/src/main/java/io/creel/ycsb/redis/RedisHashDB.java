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
 * name is not part of the key (as in YCSB's binding). Scan is {@code NOT_IMPLEMENTED}: YCSB's
 * binding keeps a sorted-set index for it, which costs every insert a second command; neither
 * side of the bench runs workload E, so the index is left out and Redis's inserts stay one command.
 *
 * <p>Properties: {@value #HOST} (default 127.0.0.1), {@value #PORT} (6379), {@value #TIMEOUT}
 * (connect and socket timeout in ms, 2000).
 */
public final class RedisHashDB extends DB {
    public static final String HOST = "redis.host";
    public static final String PORT = "redis.port";
    public static final String TIMEOUT = "redis.timeout";

    private static final FailureLog FAILURES = new FailureLog(LoggerFactory.getLogger(RedisHashDB.class));

    private Jedis jedis;

    @Override
    public void init() throws DBException {
        String host = getProperties().getProperty(HOST, "127.0.0.1");
        String port = getProperties().getProperty(PORT, "6379");
        String timeout = getProperties().getProperty(TIMEOUT, "2000");
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
            jedis.hset(bytes(key), hash);
            return Status.OK;
        } catch (JedisException e) {
            FAILURES.failed(operation, table, key, e);
            return Status.ERROR;
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            return jedis.del(bytes(key)) == 0 ? Status.NOT_FOUND : Status.OK;
        } catch (JedisException e) {
            FAILURES.failed("delete", table, key, e);
            return Status.ERROR;
        }
    }

    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        FAILURES.unsupported("scan", "this comparison DB keeps no key index (see its Javadoc)");
        return Status.NOT_IMPLEMENTED;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
