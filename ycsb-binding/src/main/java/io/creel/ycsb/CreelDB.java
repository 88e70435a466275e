package io.creel.ycsb;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.client.TableEntry;
import io.creel.client.integration.SharedClient;
import io.creel.client.integration.SharedClients;
import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import io.creel.ycsb.record.RecordCodec;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB's {@link DB} for Creel ({@code -db io.creel.ycsb.CreelDB}): a YCSB table is a Creel Table
 * ({@code <creel.ycsb.root>/<table>}, non-enumerable unless {@code creel.ycsb.table.enumerable}),
 * a record is one KeyValue whose value holds all its fields ({@link RecordCodec}).
 *
 * <ul>
 *   <li>{@code insert} puts the record; an existing key is replaced (the new value becomes
 *       visible atomically when it commits).</li>
 *   <li>{@code read} gets the value and hands out the named fields (all if none are named).</li>
 *   <li>{@code update} reads the record, replaces the named fields and puts the whole record
 *       back as a new version. Two concurrent updates of one record: the last to commit wins for
 *       the whole record, so the other's fields are lost (there is no compare-and-set to detect
 *       it). An update of a missing key is {@code NOT_FOUND} and creates nothing.</li>
 *   <li>{@code delete} removes the KeyValue.</li>
 *   <li>{@code scan} reads up to {@code recordcount} records from the start key on, in key
 *       order, from a Table created ordered ({@code creel.ycsb.table.ordered}, on by default for
 *       a workload that scans): one request for records the namenode keeps inline, plus a read per
 *       record kept in blocks. A scan of an unordered Table is {@code ERROR}, logged once with
 *       what to set.</li>
 * </ul>
 *
 * <p>Statuses: a missing key is {@code NOT_FOUND}; a key or table name Creel refuses is
 * {@code BAD_REQUEST}; any other failure is {@code ERROR}. Failures are logged once per kind
 * ({@link FailureLog}), never thrown out of an operation. Every operation waits at most twice
 * {@code creel.client.request.timeout}.
 */
public final class CreelDB extends DB {
    /** YCSB's property naming the workload's table (CoreWorkload's default is {@value #DEFAULT_TABLE}). */
    static final String TABLE_PROPERTY = "table";
    static final String DEFAULT_TABLE = "usertable";

    private SharedClient held;
    private SharedState shared;
    private CreelClient client;
    private Tables tables;
    private FailureLog failures;
    private Duration wait;

    /** Connects (sharing the client of the other threads) and makes the workload's table if missing. */
    @Override
    public void init() throws DBException {
        YcsbSettings settings;
        try {
            settings = YcsbSettings.from(getProperties());
        } catch (RuntimeException e) {
            throw new DBException("Creel binding: " + e.getMessage(), e);
        }
        held = SharedClients.acquire(settings.conf());
        shared = held.attachment(SharedState.class, c -> new SharedState(c, settings));
        client = shared.client();
        tables = shared.tables();
        failures = shared.failures();
        wait = shared.operationTimeout();
        String table = getProperties().getProperty(TABLE_PROPERTY, DEFAULT_TABLE);
        try {
            tables.path(table);
        } catch (RuntimeException e) {
            held.close();
            held = null;
            shared = null;
            throw new DBException("Creel binding: cannot prepare table '" + table + "' under " + settings.root()
                    + " of the cluster at " + settings.conf().get(ConfKeys.NAMENODE_ADDRESS).get(0).toUri() + ": "
                    + e.getMessage(), e);
        }
    }

    @Override
    public void cleanup() throws DBException {
        if (held != null) {
            held.close();
            held = null;
            shared = null;
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            ByteBuffer value = Futures.await(client.getValue(tables.path(table), key), wait, "read of " + key);
            RecordCodec.decode(value, fields, result);
            return Status.OK;
        } catch (RuntimeException e) {
            result.clear();
            return failed("read", table, key, e, true);
        }
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        try {
            put(table, key, RecordCodec.encode(values));
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("insert", table, key, e, false);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        ByteBuffer current;
        try {
            current = Futures.await(client.getValue(tables.path(table), key), wait, "read for update of " + key);
        } catch (RuntimeException e) {
            return failed("update", table, key, e, true);
        }
        try {
            put(table, key, RecordCodec.merge(current, values));
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("update", table, key, e, false);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            String path = PathName.parse(tables.path(table)).child(key).toString();
            Futures.await(client.delete(path, false), wait, "delete of " + key);
            return Status.OK;
        } catch (RuntimeException e) {
            return failed("delete", table, key, e, true);
        }
    }

    /** The records from {@code startkey} on in key order, each with the named fields (all if none). */
    @Override
    public Status scan(String table, String startkey, int recordcount, Set<String> fields,
                       Vector<HashMap<String, ByteIterator>> result) {
        try {
            List<TableEntry> records = Futures.await(client.scanValues(tables.path(table), startkey, recordcount), wait,
                    "scan of " + recordcount + " records from " + startkey);
            for (TableEntry r : records) {
                HashMap<String, ByteIterator> fieldsOfRecord = new HashMap<>();
                RecordCodec.decode(r.value(), fields, fieldsOfRecord);
                result.add(fieldsOfRecord);
            }
            return Status.OK;
        } catch (RuntimeException e) {
            result.clear();
            RuntimeException reported = e;
            if (e instanceof CreelException ce && ce.code() == ErrorCode.INVALID_ARGUMENT
                    && String.valueOf(ce.getMessage()).contains("keeps no key order")) {
                reported = new CreelException(ce.code(), ce.getMessage() + " (the YCSB binding creates its Tables "
                        + "ordered when " + YcsbKeys.TABLE_ORDERED.name() + " is true, or auto and the workload scans: "
                        + "load the table again with a scanning workload, or set it)", ce);
            }
            return failed("scan", table, startkey, reported, false);
        }
    }

    /** The process-wide client state this DB uses (for tests). */
    SharedState shared() {
        return shared;
    }

    private void put(String table, String key, ByteBuffer record) {
        Futures.await(client.putValue(tables.path(table), key, record), wait, "write of " + key);
    }

    /**
     * The status for a failure: {@code NOT_FOUND} when the key is missing (only where the key was
     * looked up: a put that finds no Table has lost the table, an error), {@code BAD_REQUEST} for a
     * name Creel refuses, else {@code ERROR}. All but NOT_FOUND are logged once per kind.
     */
    private Status failed(String operation, String table, String key, RuntimeException e, boolean keyLookedUp) {
        if (e instanceof CreelException ce) {
            if (ce.code() == ErrorCode.NOT_FOUND && keyLookedUp) {
                return Status.NOT_FOUND;
            }
            if (ce.code() == ErrorCode.INVALID_NAME || ce.code() == ErrorCode.LIMIT_EXCEEDED) {
                failures.failed(operation, table, key, e);
                return Status.BAD_REQUEST;
            }
        }
        failures.failed(operation, table, key, e);
        return Status.ERROR;
    }
}
