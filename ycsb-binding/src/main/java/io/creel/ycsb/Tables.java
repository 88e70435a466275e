package io.creel.ycsb;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where each YCSB table lives: {@code <root>/<table>}, a Creel Table made on first use (and the
 * root directory with it). A table that exists is used as it is; a node of that name that is not
 * a Table is an error naming what it is; one that expires, made by another process (a load phase),
 * is named in a warning with the time it has left. Each table is checked once per process.
 */
final class Tables {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Tables.class);
    private final CreelClient client;
    private final PathName root;
    private final CreateOptions options;
    private final Duration wait;
    private final Map<String, String> ready = new ConcurrentHashMap<>();

    Tables(CreelClient client, PathName root, CreateOptions options, Duration wait) {
        this.client = client;
        this.root = root;
        this.options = options;
        this.wait = wait;
    }

    /** The Creel path of YCSB table {@code table}, created if missing. */
    String path(String table) {
        String path = ready.get(table);
        if (path != null) {
            return path;
        }
        path = ensureTable(table);
        ready.put(table, path);
        return path;
    }

    private String ensureTable(String table) {
        PathName p = root.child(table);
        for (int depth = 1; depth < p.depth(); depth++) {
            ensure(prefix(p, depth), NodeType.DIRECTORY, CreateOptions.defaults());
        }
        ensure(p.toString(), NodeType.TABLE, options);
        return p.toString();
    }

    private void ensure(String path, NodeType type, CreateOptions how) {
        try {
            Futures.await(client.create(path, type, how), wait, "creating " + type.displayName() + " " + path);
            return;
        } catch (CreelException e) {
            if (e.code() != ErrorCode.ALREADY_EXISTS) {
                throw e;
            }
        }
        CreelNode existing = Futures.await(client.lookup(path), wait, "looking up " + path);
        if (existing.type() != type) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + " is a " + existing.type().displayName()
                    + "; the YCSB binding needs a " + type.displayName() + " there");
        }
        io.creel.common.protocol.NodeExpiry e = existing.info().expiry();
        // (Asking for the session id extends the heartbeats the expiring create started to every partition.)
        if (e != null && !e.owner().equals(client.sessionId())) {
            // A run phase uses the Table its load phase made: this process does not own it, so its
            // use does not renew it, and a run longer than what is left would lose it midway.
            long left = Math.max(0, e.graceMillis() - e.silentMillis());
            LOG.warn("{} expires: its creator (session {}) was last heard {} s ago, so it goes in about {} s unless "
                    + "that process comes back; set creel.ycsb.ttl longer (or 0) for the phase that loads it", path,
                    e.owner(), e.silentMillis() / 1000, left / 1000);
        }
    }

    private static String prefix(PathName p, int depth) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < depth; i++) {
            sb.append('/').append(p.component(i));
        }
        return sb.toString();
    }
}
