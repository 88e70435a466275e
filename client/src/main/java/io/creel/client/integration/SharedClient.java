package io.creel.client.integration;

import io.creel.client.CreelClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One holder's handle on a client of {@link SharedClients}. Close it when done (once is enough; a
 * second close does nothing); the client closes with its last handle. Never close the client itself:
 * other holders use it.
 */
public final class SharedClient implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SharedClient.class);

    /** A shared client and what its holders share with it. */
    static final class Entry {
        final Map<String, Object> key;
        final CreelClient client;
        /** Guarded by {@link SharedClients}' lock. */
        int handles;
        /** Made on demand, closed before the client; guarded by itself. */
        private final Map<Class<?>, Object> attachments = new LinkedHashMap<>();

        Entry(Map<String, Object> key, CreelClient client) {
            this.key = key;
            this.client = client;
        }
    }

    private final Entry entry;
    private boolean closed;

    SharedClient(Entry entry) {
        this.entry = entry;
    }

    /** The shared client. */
    public CreelClient client() {
        checkOpen();
        return entry.client;
    }

    /**
     * What the holders of this client share with it besides the client (YCSB's table checks and
     * failure counts): made by {@code make} the first time a holder asks for {@code type}, the same
     * object afterwards. An attachment that is {@link AutoCloseable} is closed when the client closes,
     * before it, the latest made first.
     */
    public <T> T attachment(Class<T> type, Function<CreelClient, ? extends T> make) {
        checkOpen();
        synchronized (entry.attachments) {
            Object a = entry.attachments.get(type);
            if (a == null) {
                a = make.apply(entry.client);
                entry.attachments.put(type, a);
            }
            return type.cast(a);
        }
    }

    private synchronized void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this handle on the shared Creel client is closed");
        }
    }

    /** Gives this handle back; the last handle of the client closes it (and its attachments first). */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (!SharedClients.release(entry)) {
            return;
        }
        List<Object> attached;
        synchronized (entry.attachments) {
            attached = new ArrayList<>(entry.attachments.values());
        }
        for (int i = attached.size() - 1; i >= 0; i--) {
            if (attached.get(i) instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception e) {
                    // One holder's state failing to close must not keep the client's connections open.
                    LOG.warn("closing {} of the shared Creel client failed", c, e);
                }
            }
        }
        entry.client.close();
    }
}
