package io.creel.bench.scope;

import io.creel.client.CreelClient;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * The nodes of one bench run. Every top-level name a mode uses is {@code /bench-<run>-<purpose>},
 * with a run id no other run shares, so a run never trips over what an earlier (failed or
 * interrupted) run left behind. Paths are tracked <em>before</em> they are created, and
 * {@link #close} removes every tracked path, latest first (so large subtrees a mode tracked
 * piecewise go in pieces before their parent): an existing path is removed with everything below
 * it, a missing one is fine. The first removal that fails for another reason ends the cleanup,
 * and the error lists what is left. The modes create their top-level nodes with {@link #scratch}, so
 * a run that is killed before it cleans up leaves nothing behind for long either.
 */
public final class RunNamespace implements AutoCloseable {
    private static final Pattern PURPOSE = Pattern.compile("[a-z0-9][a-z0-9-]{0,40}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String runId;
    private final Supplier<CreelClient> client;
    private final Duration timeout;
    private final List<String> tracked = new ArrayList<>();
    private final List<String> topLevel = new ArrayList<>();

    /**
     * @param runId   this run's id (see {@link #newRunId()})
     * @param client  the client that removes the nodes (asked for only when there is something to remove)
     * @param timeout how long one removal may take
     */
    public RunNamespace(String runId, Supplier<CreelClient> client, Duration timeout) {
        if (!PURPOSE.matcher(runId).matches()) {
            throw new IllegalArgumentException("a run id is lower-case letters, digits and dashes, not '" + runId + "'");
        }
        this.runId = runId;
        this.client = client;
        this.timeout = timeout;
    }

    /** A fresh run id: 8 random base-36 characters. */
    public static String newRunId() {
        long v = RANDOM.nextLong() & Long.MAX_VALUE;
        String s = Long.toString(v, 36);
        return (s + "00000000").substring(0, 8).toLowerCase(Locale.ROOT);
    }

    public String runId() {
        return runId;
    }

    /** The run's top-level path for {@code purpose} ({@code /bench-<run>-<purpose>}), tracked for removal. */
    public synchronized String path(String purpose) {
        if (!PURPOSE.matcher(purpose).matches()) {
            throw new IllegalArgumentException("a purpose is lower-case letters, digits and dashes, not '" + purpose
                    + "'");
        }
        String p = "/bench-" + runId + "-" + purpose;
        if (!topLevel.contains(p)) {
            topLevel.add(p);
            tracked.add(p);
        }
        return p;
    }

    /**
     * Tracks {@code path} below one of the run's top-level paths, to be removed before it: a
     * mode that builds a large subtree tracks its parts, so no single removal is unbounded.
     */
    public synchronized void track(String path) {
        boolean inside = topLevel.stream().anyMatch(t -> path.startsWith(t + "/"));
        if (!inside) {
            throw new IllegalArgumentException(path + " is not below a path of run " + runId);
        }
        tracked.add(path);
    }

    /**
     * {@code options} for one of the run's top-level nodes: bound to the session of the client that
     * creates it (one of the pool's main clients, which live as long as the run), so the namenode
     * removes it {@code creel.namenode.session.timeout} after a killed bench stopped heartbeating.
     */
    public static io.creel.client.CreateOptions scratch(io.creel.client.CreateOptions options) {
        return options.withExpiry(io.creel.common.protocol.Expiry.session());
    }

    /** The top-level paths this run has used so far. */
    public synchronized List<String> topLevelPaths() {
        return List.copyOf(topLevel);
    }

    /** Removes every tracked path, latest first; an error names what could not be removed. */
    @Override
    public synchronized void close() {
        if (tracked.isEmpty()) {
            return;
        }
        CreelClient c = client.get();
        for (int i = tracked.size() - 1; i >= 0; i--) {
            String p = tracked.get(i);
            try {
                c.delete(p, true).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                CreelException ce = CreelException.unwrap(e.getCause());
                if (ce.code() != ErrorCode.NOT_FOUND) {
                    throw leftBehind(p, ce.getMessage(), ce);
                }
            } catch (TimeoutException e) {
                throw leftBehind(p, "no answer within " + timeout.toSeconds() + " s", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw leftBehind(p, "interrupted", e);
            }
            tracked.remove(i);
        }
        topLevel.clear();
    }

    private CreelException leftBehind(String failed, String why, Throwable cause) {
        List<String> left = topLevel.stream().filter(t -> tracked.contains(t)).toList();
        return new CreelException(ErrorCode.UNAVAILABLE, "removing the bench's node " + failed + " failed (" + why
                + "); left behind: " + String.join(", ", left), cause);
    }
}
