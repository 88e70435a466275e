package io.creel.ycsb;

import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the DB instances of a process that share a configuration share besides their
 * {@link CreelClient}: the table checks and the failure counts. YCSB makes one DB per client thread;
 * a Creel client is thread-safe and pipelines many requests over one connection per server, so the
 * threads share one ({@link io.creel.client.integration.SharedClients}) and this rides along with it
 * as an attachment: made by the first DB, closed (logging the failure totals) with the client when
 * the last DB lets go.
 */
final class SharedState implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CreelDB.class);

    private final CreelClient client;
    private final Tables tables;
    private final FailureLog failures = new FailureLog(LOG);
    private final Duration wait;

    SharedState(CreelClient client, YcsbSettings settings) {
        this.client = client;
        // The client bounds every request; this backstop bounds a chain of them (create, write, commit).
        this.wait = settings.conf().get(ConfKeys.CLIENT_REQUEST_TIMEOUT).multipliedBy(2);
        this.tables = new Tables(client, settings.root(), settings.tableOptions(), wait);
    }

    /** The last DB of the configuration let go: the failure totals are logged. */
    @Override
    public void close() {
        failures.summarize();
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
