package io.creel.client.integration;

import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The Creel clients of this process, one per configuration, shared by whatever in the process uses
 * Creel: a Spark executor's shuffle and broadcasts, every Hadoop {@code FileSystem} instance of a
 * cluster, YCSB's client threads. A client pipelines many requests over one connection per server
 * and is thread-safe, so one per configuration is enough, and two would only double the event
 * loops, connections and block-location caches.
 *
 * <p>{@link #acquire} returns a {@link SharedClient} handle; the client connects with the first
 * handle of its configuration and closes when the last one closes. Configurations are the same when
 * every key has the same value, whether set or left at its default.
 */
public final class SharedClients {
    private static final Map<Map<String, Object>, SharedClient.Entry> OPEN = new HashMap<>();

    private SharedClients() {
    }

    /** A handle on the client of {@code conf}'s settings, connecting it if no handle holds it yet. */
    public static SharedClient acquire(CreelConf conf) {
        Map<String, Object> key = effectiveSettings(conf);
        synchronized (OPEN) {
            SharedClient.Entry e = OPEN.get(key);
            if (e == null) {
                e = new SharedClient.Entry(key, CreelClient.connect(conf));
                OPEN.put(key, e);
            }
            e.handles++;
            return new SharedClient(e);
        }
    }

    /** Clients open now. */
    public static int open() {
        synchronized (OPEN) {
            return OPEN.size();
        }
    }

    /**
     * Gives back one handle of {@code e}; true when it was the last, and the entry is no longer
     * found by {@link #acquire} (its client is the caller's to close).
     */
    static boolean release(SharedClient.Entry e) {
        synchronized (OPEN) {
            if (--e.handles > 0) {
                return false;
            }
            OPEN.remove(e.key, e);
            return true;
        }
    }

    /** Every key's value in {@code conf}, by name: what decides whether two clients would differ. */
    private static Map<String, Object> effectiveSettings(CreelConf conf) {
        Map<String, Object> out = new TreeMap<>();
        for (ConfKey<?> k : ConfKeys.all().values()) {
            out.put(k.name(), conf.get(k));
        }
        return out;
    }
}
