package io.creel.spark.broadcast;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.client.integration.SharedClient;
import io.creel.client.integration.SharedClients;
import io.creel.common.conf.ConfKeys;
import java.io.IOException;
import java.io.InputStream;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkEnv;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BlockResult;
import org.apache.spark.storage.BroadcastBlockId;
import org.apache.spark.storage.StorageLevel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.reflect.ClassTag;

/**
 * The executor side: reads a broadcast's File once per JVM and keeps the value in the block
 * manager under the broadcast's id, as Spark's torrent broadcast keeps its own, so Spark's
 * {@code removeBroadcast} (unpersist, destroy, the cleaner) drops it and memory pressure moves it
 * to disk like any cached block. Tasks of one executor wait for the first reader instead of
 * reading the File again.
 */
public final class BroadcastReader {
    private static final Logger LOG = LoggerFactory.getLogger(BroadcastReader.class);
    /** Block field naming our blocks: {@code broadcast_<id>_creel}. */
    static final String BLOCK_FIELD = "creel";
    private static final Object[] LOCKS = new Object[64];
    /** Reads per broadcast File, for the most recent files only: a long-lived executor sees many. */
    private static final int READS_KEPT = 4096;
    private static final Map<String, AtomicLong> READS = Collections.synchronizedMap(
            new LinkedHashMap<>(64, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, AtomicLong> eldest) {
                    return size() > READS_KEPT;
                }
            });

    static {
        for (int i = 0; i < LOCKS.length; i++) {
            LOCKS[i] = new Object();
        }
    }

    private BroadcastReader() {
    }

    /** How often this JVM read the broadcast File {@code path} from Creel (1 after any number of tasks, unless unpersisted). */
    public static long readsFromCreel(String path) {
        AtomicLong n = READS.get(path);
        return n == null ? 0 : n.get();
    }

    @SuppressWarnings("unchecked")
    static <T> T read(long id, String path, long length, ClassTag<T> tag) {
        SparkEnv env = SparkEnv.get();
        if (env == null) {
            throw new CreelBroadcastException("Creel broadcast " + id + " (" + path + "): no SparkEnv in this JVM; "
                    + "a broadcast's value is read in a Spark driver or executor");
        }
        BlockManager blocks = env.blockManager();
        BroadcastBlockId block = new BroadcastBlockId(id, BLOCK_FIELD);
        synchronized (LOCKS[(int) (id & (LOCKS.length - 1))]) {
            Option<BlockResult> cached = blocks.getLocalValues(block);
            if (cached.isDefined()) {
                try {
                    return (T) cached.get().data().next();
                } finally {
                    blocks.releaseLock(block, Option.empty());
                }
            }
            T value = fetch(env, id, path, length, tag);
            if (!blocks.putSingle(block, value, StorageLevel.MEMORY_AND_DISK(), false, tag)) {
                // The value is correct; only the next task on this executor reads it again.
                LOG.warn("Creel broadcast {} ({}): the block manager did not keep the value of {} bytes", id, path,
                        length);
            }
            return value;
        }
    }

    private static <T> T fetch(SparkEnv env, long id, String path, long length, ClassTag<T> tag) {
        BroadcastSettings s = BroadcastSettings.from(env.conf());
        READS.computeIfAbsent(path, k -> new AtomicLong()).incrementAndGet();
        // The executor plugin holds this client for the executor's life; a read before it started
        // (or without it) holds it for the read only.
        try (SharedClient held = SharedClients.acquire(s.client().creel())) {
            CreelClient client = held.client();
            CreelNode node = Futures.await(client.lookup(path), client.requestTimeout(), "looking up " + path);
            if (node.length() != length) {
                throw new CreelBroadcastException("Creel broadcast " + id + ": " + path + " holds " + node.length()
                        + " bytes, the driver wrote " + length);
            }
            try (InputStream in = node.inputStream();
                 DeserializationStream values = env.serializer().newInstance().deserializeStream(in)) {
                return values.readObject(tag);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof CreelBroadcastException) {
                throw (CreelBroadcastException) e;
            }
            throw new CreelBroadcastException("Creel broadcast " + id + ": cannot read " + path + " (" + length
                    + " bytes) from Creel at " + s.client().creel().get(ConfKeys.NAMENODE_ADDRESS) + ": " + e, e);
        }
    }
}
