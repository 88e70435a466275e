package io.creel.spark.shuffle.cleanup;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.spark.common.SparkCreelConf;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Finds and removes the shuffle and broadcast data that Spark applications of releases before
 * expiring application directories left behind when their driver crashed or was killed. An
 * application directory of this release is bound to its driver's Creel session and goes by itself
 * once the driver is gone ({@code creel.namenode.session.timeout}); the cleaner reports such a
 * directory and never removes it. Of the others, it removes every application directory under a
 * root whose heartbeat ({@link ApplicationHeartbeat}, written by those releases' drivers every
 * {@code spark.creel.shuffle.heartbeat.interval}, 30 s) is older than a threshold, or that has no
 * heartbeat and was last changed before it, and heartbeats left without a directory. The command
 * looks at the shuffle root and the broadcast root by default; each {@code --root} replaces them.
 *
 * <pre>
 * java -cp creel-spark-VERSION.jar io.creel.spark.shuffle.cleanup.StaleShuffleCleaner \
 *     [--namenode creel://host:port] [--root /spark-shuffle --root /spark-broadcast] [--older-than 10m] [--dry-run]
 * </pre>
 */
public final class StaleShuffleCleaner {
    /** The default age after which an application without a fresh heartbeat counts as gone. */
    public static final Duration DEFAULT_OLDER_THAN = Duration.ofMinutes(10);
    /**
     * The broadcast plugin's default root ({@code io.creel.spark.broadcast.BroadcastSettings}, in
     * spark-broadcast, a module beside this one that this one does not depend on; spark-bundle's
     * {@code StaleBroadcastCleanupTest} checks that the two agree).
     */
    static final String BROADCAST_ROOT_DEFAULT = "/spark-broadcast";

    private final CreelClient client;
    private final String root;
    private final LongSupplier clock;

    /**
     * What the cleaner found about one application.
     *
     * @param expires whether its directory expires with its driver's session (then it is never stale)
     */
    public record Finding(String app, String path, long lastSignMillis, boolean heartbeat, boolean stale,
                          boolean removed, boolean expires) {
    }

    public StaleShuffleCleaner(CreelClient client, String root, LongSupplier clock) {
        this.client = client;
        this.root = root;
        this.clock = clock;
    }

    /**
     * Looks at every application under the root; with {@code remove}, deletes the stale ones'
     * directories and heartbeats.
     */
    public List<Finding> run(Duration olderThan, boolean remove) {
        Duration timeout = client.requestTimeout();
        List<DirectoryEntry> entries;
        try {
            entries = Futures.await(client.list(root), timeout, "listing " + root);
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return List.of();
            }
            throw e;
        }
        String table = ShufflePaths.liveTable(root);
        Map<String, Long> beats = new HashMap<>();
        boolean hasTable = entries.stream().anyMatch(e -> e.name().equals(ShufflePaths.LIVE_TABLE));
        if (hasTable) {
            for (DirectoryEntry kv : Futures.await(client.list(table), timeout, "listing " + table)) {
                ByteBuffer v = Futures.await(client.getValue(table, kv.name()), timeout, "reading " + kv.path());
                beats.put(kv.name(), ApplicationHeartbeat.decode(v));
            }
        }
        long now = clock.getAsLong();
        List<Finding> out = new ArrayList<>();
        Map<String, Boolean> seen = new LinkedHashMap<>();
        for (DirectoryEntry e : entries) {
            if (e.info().type() != NodeType.DIRECTORY) {
                continue;
            }
            Long beat = beats.get(e.name());
            long sign = beat != null && beat >= 0 ? beat : e.info().modifiedMillis();
            // The namenode removes an expiring directory once its owner is gone; while it is there,
            // its owner lives (it writes no heartbeat, and its directory's age says nothing).
            boolean expires = e.info().expiry() != null;
            boolean stale = !expires && now - sign > olderThan.toMillis();
            boolean removed = false;
            if (stale && remove) {
                removed = delete(e.path(), true) && (beat == null || delete(table + "/" + e.name(), false));
            }
            seen.put(e.name(), true);
            out.add(new Finding(e.name(), e.path(), sign, beat != null, stale, removed, expires));
        }
        // Heartbeats whose application directory is gone (a crash between the two removals at stop).
        for (Map.Entry<String, Long> b : beats.entrySet()) {
            if (!seen.containsKey(b.getKey()) && now - b.getValue() > olderThan.toMillis()) {
                boolean removed = remove && delete(table + "/" + b.getKey(), false);
                out.add(new Finding(b.getKey(), table + "/" + b.getKey(), b.getValue(), true, true, removed, false));
            }
        }
        return out;
    }

    private boolean delete(String path, boolean recursive) {
        try {
            Futures.await(client.delete(path, recursive), client.requestTimeout(), "removing " + path);
            return true;
        } catch (CreelException e) {
            return e.code() == ErrorCode.NOT_FOUND;
        }
    }

    /** The command: prints one line per application and exits 0, or 2 on bad arguments, 1 on a Creel error. */
    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        Map<String, String> settings = new LinkedHashMap<>();
        List<String> roots = new ArrayList<>();
        Duration olderThan = DEFAULT_OLDER_THAN;
        boolean dryRun = false;
        try {
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--namenode" -> settings.put(ConfKeys.NAMENODE_ADDRESS.name(), value(args, ++i));
                    case "--root" -> roots.add(value(args, ++i));
                    case "--older-than" -> olderThan = ConfValues.parseDuration(value(args, ++i));
                    case "--dry-run" -> dryRun = true;
                    case "--conf" -> {
                        String kv = value(args, ++i);
                        int eq = kv.indexOf('=');
                        if (eq <= 0) {
                            throw new IllegalArgumentException("--conf needs key=value: " + kv);
                        }
                        settings.put(kv.substring(0, eq), kv.substring(eq + 1));
                    }
                    case "-h", "--help" -> {
                        out.println("usage: StaleShuffleCleaner [--namenode creel://host:port] [--root DIR]... "
                                + "[--older-than DURATION] [--dry-run] [--conf key=value]...  (roots: "
                                + SparkCreelConf.ROOT_DEFAULT + " and " + BROADCAST_ROOT_DEFAULT + " unless given)");
                        return 0;
                    }
                    default -> throw new IllegalArgumentException("unknown argument " + args[i]);
                }
            }
        } catch (IllegalArgumentException e) {
            err.println("creel spark-cleanup: " + e.getMessage());
            return 2;
        }
        if (roots.isEmpty()) {
            roots.add(SparkCreelConf.ROOT_DEFAULT);
            roots.add(BROADCAST_ROOT_DEFAULT);
        }
        try {
            CreelConf conf = CreelConf.load(CreelConf.locateSiteFile(null), settings);
            try (CreelClient client = CreelClient.connect(conf)) {
                List<Finding> found = new ArrayList<>();
                for (String root : roots) {
                    found.addAll(new StaleShuffleCleaner(client, root, System::currentTimeMillis).run(olderThan, !dryRun));
                }
                long now = System.currentTimeMillis();
                for (Finding f : found) {
                    if (f.expires()) {
                        out.printf("%-50s %-20s expires by itself once its driver's session ends%n", f.path(), "live");
                        continue;
                    }
                    String state = !f.stale() ? "live" : f.removed() ? "removed" : dryRun ? "stale" : "stale, not removed";
                    out.printf("%-50s %-20s last sign of life %ds ago%s%n", f.path(), state,
                            (now - f.lastSignMillis()) / 1000, f.heartbeat() ? "" : " (no heartbeat: directory age)");
                }
                out.printf("%d application(s), %d stale, %d removed%n", found.size(),
                        found.stream().filter(Finding::stale).count(), found.stream().filter(Finding::removed).count());
            }
            return 0;
        } catch (CreelException e) {
            err.println("creel spark-cleanup: " + e.getMessage());
            return 1;
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException(args[i - 1] + " needs a value");
        }
        return args[i];
    }
}
