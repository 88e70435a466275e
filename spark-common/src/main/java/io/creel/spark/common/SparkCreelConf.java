package io.creel.spark.common;

import io.creel.client.integration.FrameworkSettings;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkConf;
import scala.Tuple2;

/**
 * The {@code spark.creel.*} keys: how a {@link SparkConf} becomes a {@link CreelConf}, read as every
 * integration reads its framework's keys ({@link FrameworkSettings}: the Hadoop adapter's
 * {@code fs.creel.*} the same way), and the shuffle's own settings. Precedence, lowest first:
 * {@code creel-site.conf} ({@code $CREEL_CONF_DIR}, else {@value #SITE_DIR}), the pass-through keys
 * {@value #PASS_THROUGH_PREFIX}{@code <creel key>}, then {@value #NAMENODE_ADDRESS}.
 *
 * <p>Keys are spelled as Creel's own are (lower case, words between dots). The camel-case spellings
 * of earlier versions ({@code spark.creel.shuffle.storageClass}, {@code ...preferLocal},
 * {@code ...maxBytesInFlight}, {@code ...readChunk}, {@code ...indexCacheSize},
 * {@code ...heartbeatInterval}) still work, with a warning.
 */
public final class SparkCreelConf {
    /** The prefix of every Creel key in a Spark configuration. */
    public static final String PREFIX = "spark.creel.";
    /** Namenode address(es), {@code creel://host:port[,...]}; becomes {@code creel.namenode.address}. */
    public static final String NAMENODE_ADDRESS = PREFIX + FrameworkSettings.NAMENODE_ADDRESS;
    /** Prefix of keys passed through: {@code spark.creel.conf.creel.block.size} sets {@code creel.block.size}. */
    public static final String PASS_THROUGH_PREFIX = PREFIX + FrameworkSettings.PASS_THROUGH;
    /** Directory holding {@code creel-site.conf}, used when {@code CREEL_CONF_DIR} is not set. */
    public static final String SITE_DIR = PREFIX + FrameworkSettings.SITE_DIR;
    /** Directory under which each application keeps its shuffle data. */
    public static final String ROOT = PREFIX + "shuffle.root";
    public static final String ROOT_DEFAULT = "/spark-shuffle";
    /** Storage class of map output files ("" inherits: the cluster's order, DRAM first). */
    public static final String STORAGE_CLASS = PREFIX + "shuffle." + FrameworkSettings.STORAGE_CLASS;
    /**
     * Copies of each map output block, on storage servers of different hosts; 0 leaves it to
     * {@code creel.client.replication} and the namenode. At 2 or more Spark counts shuffle data as
     * reliable: an executor's or a machine's loss reruns no map.
     */
    public static final String REPLICATION = PREFIX + "shuffle." + FrameworkSettings.REPLICATION;
    /** Whether map outputs prefer the storage servers of the writing host (the mapped same-host path). */
    public static final String PREFER_LOCAL = PREFIX + "shuffle.prefer.local";
    /** Bytes a reduce task reads ahead; default {@code spark.reducer.maxSizeInFlight}. */
    public static final String MAX_BYTES_IN_FLIGHT = PREFIX + "shuffle.max.bytes.in.flight";
    /** Largest single read request; a partition larger than this is read in chunks of this size. */
    public static final String READ_CHUNK = PREFIX + "shuffle.read.chunk";
    public static final String READ_CHUNK_DEFAULT = "4m";
    /** Bytes of map-output indexes an executor keeps (each map output's index is read once per executor). */
    public static final String INDEX_CACHE = PREFIX + "shuffle.index.cache.size";
    public static final String INDEX_CACHE_DEFAULT = "64m";
    /**
     * How map outputs are laid out in Creel: {@code per-map} (one File per map task, with an index of
     * its partitions), {@code merged} (one Bag per reduce partition, holding one File per writing lane
     * of each executor, so a reduce task reads a few sequential streams rather than one piece per map),
     * or {@code auto}: merged when maps x reducers reach {@value #MERGED_FROM_DEFAULT}.
     */
    public static final String LAYOUT = PREFIX + "shuffle.layout";
    public static final String LAYOUT_DEFAULT = "auto";
    /** With {@code layout = auto}: the maps x reducers from which a shuffle is merged. */
    public static final String MERGED_FROM = PREFIX + "shuffle.merged.from";
    public static final String MERGED_FROM_DEFAULT = "1000000";
    /**
     * How often drivers of earlier releases marked their application live for the crashed-application
     * cleaner. Unused since application directories expire with the driver's Creel session (the
     * namenode's {@code creel.namenode.session.timeout} bounds a crashed driver's data); still read,
     * so that configurations that set it keep working.
     */
    public static final String HEARTBEAT = PREFIX + "shuffle.heartbeat.interval";
    public static final String HEARTBEAT_DEFAULT = "30s";

    private final CreelConf creel;
    private final String root;
    private final String storageClass;
    private final boolean preferLocal;
    private final int replication;
    private final long maxBytesInFlight;
    private final int readChunk;
    private final long indexCacheBytes;
    private final Duration heartbeat;
    private final String layout;
    private final long mergedFrom;

    private SparkCreelConf(CreelConf creel, String root, String storageClass, boolean preferLocal, int replication,
                           long maxBytesInFlight, int readChunk, long indexCacheBytes, Duration heartbeat,
                           String layout, long mergedFrom) {
        this.layout = layout;
        this.mergedFrom = mergedFrom;
        this.replication = replication;
        this.creel = creel;
        this.root = root;
        this.storageClass = storageClass;
        this.preferLocal = preferLocal;
        this.maxBytesInFlight = maxBytesInFlight;
        this.readChunk = readChunk;
        this.indexCacheBytes = indexCacheBytes;
        this.heartbeat = heartbeat;
    }

    /** The {@code spark.creel.*} keys of {@code conf}. */
    public static FrameworkSettings settings(SparkConf conf) {
        Map<String, String> under = new LinkedHashMap<>();
        for (Tuple2<String, String> kv : conf.getAllWithPrefix(PREFIX)) {
            under.put(kv._1(), kv._2());
        }
        return FrameworkSettings.of(PREFIX, under);
    }

    /** Reads every {@code spark.creel.*} key of {@code conf}; a bad value is a CONFIGURATION error naming the key. */
    public static SparkCreelConf from(SparkConf conf) {
        FrameworkSettings s = settings(conf);
        CreelConf creel = s.creelConf();
        String root = rootDirectory(s, key(ROOT), ROOT_DEFAULT);
        String inFlightDefault = conf.get("spark.reducer.maxSizeInFlight", "48m");
        long inFlight = size(s.setting(key(MAX_BYTES_IN_FLIGHT), inFlightDefault, "shuffle.maxBytesInFlight"), "m",
                64 << 10, 1L << 40);
        int chunk = (int) size(s.setting(key(READ_CHUNK), READ_CHUNK_DEFAULT, "shuffle.readChunk"), "", 64 << 10,
                256 << 20);
        long indexCache = size(s.setting(key(INDEX_CACHE), INDEX_CACHE_DEFAULT, "shuffle.indexCacheSize"), "", 0,
                1L << 40);
        Duration heartbeat;
        FrameworkSettings.Setting hb = s.setting(key(HEARTBEAT), HEARTBEAT_DEFAULT, "shuffle.heartbeatInterval");
        try {
            heartbeat = ConfValues.parseDuration(hb.value());
            if (heartbeat.isZero() || heartbeat.isNegative()) {
                throw new IllegalArgumentException("must be positive");
            }
        } catch (RuntimeException e) {
            throw bad(hb, e);
        }
        FrameworkSettings.Setting pl = s.setting(key(PREFER_LOCAL), "true", "shuffle.preferLocal");
        if (!pl.value().equals("true") && !pl.value().equals("false")) {
            throw bad(pl, new IllegalArgumentException("must be true or false"));
        }
        FrameworkSettings.Setting layout = s.setting(key(LAYOUT), LAYOUT_DEFAULT);
        if (!java.util.List.of("per-map", "merged", "auto").contains(layout.value())) {
            throw bad(layout, new IllegalArgumentException("must be per-map, merged or auto"));
        }
        FrameworkSettings.Setting from = s.setting(key(MERGED_FROM), MERGED_FROM_DEFAULT);
        long mergedFrom;
        try {
            mergedFrom = Long.parseLong(from.value());
            if (mergedFrom < 0) {
                throw new IllegalArgumentException("must not be negative");
            }
        } catch (RuntimeException e) {
            throw bad(from, e);
        }
        return new SparkCreelConf(creel, root, s.storageClass("shuffle.", "shuffle.storageClass"),
                Boolean.parseBoolean(pl.value()), s.replication("shuffle."), inFlight, chunk, indexCache, heartbeat,
                layout.value(), mergedFrom);
    }

    /** {@code name} without {@link #PREFIX}: the name under it. */
    private static String key(String name) {
        return name.substring(PREFIX.length());
    }

    /** A size setting; a bare number means {@code bareUnit} (Spark's maxSizeInFlight is in MiB when bare). */
    private static long size(FrameworkSettings.Setting setting, String bareUnit, long min, long max) {
        String v = setting.value();
        try {
            long n = ConfValues.parseSize(v.matches("\\d+") ? v + bareUnit : v);
            if (n < min || n > max) {
                throw new IllegalArgumentException("must be between " + ConfValues.formatSize(min) + " and "
                        + ConfValues.formatSize(max));
            }
            return n;
        } catch (RuntimeException e) {
            throw bad(setting, e);
        }
    }

    /**
     * The directory {@code key} (a name under {@link #PREFIX}) names, default {@code fallback},
     * normalised; a bad path or {@code /} (cleanup removes the whole directory) is a CONFIGURATION
     * error naming the key.
     */
    public static String rootDirectory(FrameworkSettings settings, String key, String fallback) {
        FrameworkSettings.Setting root = settings.setting(key, fallback);
        try {
            PathName p = PathName.parse(root.value());
            if (p.isRoot()) {
                throw new IllegalArgumentException("must not be / (cleanup removes the whole directory)");
            }
            return p.toString();
        } catch (RuntimeException e) {
            throw bad(root, e);
        }
    }

    private static CreelException bad(FrameworkSettings.Setting setting, RuntimeException e) {
        return new CreelException(ErrorCode.CONFIGURATION, setting.name() + " = '" + setting.value() + "': "
                + e.getMessage(), e);
    }

    /** The Creel client configuration. */
    public CreelConf creel() {
        return creel;
    }

    /** Directory of all applications' shuffle data, e.g. {@code /spark-shuffle}. */
    public String root() {
        return root;
    }

    public String storageClass() {
        return storageClass;
    }

    public boolean preferLocal() {
        return preferLocal;
    }

    /** The factor {@link #REPLICATION} sets, or 0 when it leaves it to the client and the namenode. */
    public int replication() {
        return replication;
    }

    /**
     * Whether map outputs survive the loss of the host that wrote them: their factor, as the shuffle
     * sets it (else {@code creel.client.replication}), is at least 2. A factor only the namenode
     * sets (per storage class) is not seen here: set the shuffle's key to have Spark rely on it.
     */
    public boolean reliable() {
        int copies = replication != 0 ? replication : creel.get(io.creel.client.ClientKeys.REPLICATION);
        return copies >= 2;
    }

    public long maxBytesInFlight() {
        return maxBytesInFlight;
    }

    public int readChunk() {
        return readChunk;
    }

    /**
     * Whether a shuffle of {@code maps} x {@code reducers} is laid out merged (one Bag per reduce
     * partition) rather than per map ({@link #LAYOUT}).
     */
    public boolean merged(long maps, long reducers) {
        return switch (layout) {
            case "merged" -> true;
            case "per-map" -> false;
            default -> maps * reducers >= mergedFrom;
        };
    }

    public long indexCacheBytes() {
        return indexCacheBytes;
    }

    /** {@link #HEARTBEAT}: no longer used by the driver. */
    public Duration heartbeat() {
        return heartbeat;
    }
}
