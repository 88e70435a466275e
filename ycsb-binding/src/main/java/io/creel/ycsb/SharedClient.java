package io.creel.ycsb;

import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link CreelClient} for all the DB instances of a process that share a configuration.
 * YCSB makes one DB per client thread; a Creel client is thread-safe and pipelines many requests
 * over one connection per server, so the threads share it (and its event loops, block-location
 * cache and table checks) instead of opening one cluster connection each. The last
 * {@link #release} closes it.
 */
final class SharedClient {
    private static final Logger LOG = LoggerFactory.getLogger(CreelDB.class);
    private static final Map<Map<String, String>, SharedClient> OPEN = new HashMap<>();

    private final Map<String, String> key;
    private final CreelClient client;
    private final Tables tables;
    private final FailureLog failures = new FailureLog(LOG);
    private final Duration wait;
    private int users;

    private SharedClient(Map<String, String> key, YcsbSettings settings) {
        this.key = key;
        this.client = CreelClient.connect(settings.conf());
        // The client bounds every request; this backstop bounds a chain of them (create, write, commit).
        this.wait = settings.conf().get(ConfKeys.CLIENT_REQUEST_TIMEOUT).multipliedBy(2);
        this.tables = new Tables(client, settings.root(), settings.tableOptions(), wait);
    }

    /** The shared client for {@code settings}, opened if this is its first user. */
    static synchronized SharedClient acquire(YcsbSettings settings) {
        Map<String, String> key = Map.copyOf(settings.conf().explicitSettings());
        SharedClient c = OPEN.computeIfAbsent(key, k -> new SharedClient(k, settings));
        c.users++;
        return c;
    }

    /** Gives up one use; the last one closes the client and logs the failure totals. */
    void release() {
        boolean last;
        synchronized (SharedClient.class) {
            last = --users == 0;
            if (last) {
                OPEN.remove(key);
            }
        }
        if (last) {
            failures.summarize();
            client.close();
        }
    }

    CreelClient client() {
        return client;
    }

    Tables tables() {
        return tables;
    }

    FailureLog failures() {
        return failures;
    }

    /** How long one binding operation may take in all. */
    Duration operationTimeout() {
        return wait;
    }
}
