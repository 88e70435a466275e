package io.creel.spark.shuffle;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfValues;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.spark.SparkConf;
import scala.Tuple2;

/**
 * The {@code spark.creel.*} keys: how a {@link SparkConf} becomes a {@link CreelConf} (like the
 * Hadoop adapter's {@code fs.creel.*}), and the shuffle's own settings. Precedence, lowest first:
 * {@code creel-site.conf} ({@code $CREEL_CONF_DIR}, else {@value #SITE_DIR}), the pass-through keys
 * {@value #PASS_THROUGH_PREFIX}{@code <creel key>}, then {@value #NAMENODE_ADDRESS}.
 */
public final class SparkCreelConf {
    /** Namenode address(es), {@code creel://host:port[,...]}; becomes {@code creel.namenode.address}. */
    public static final String NAMENODE_ADDRESS = "spark.creel.namenode.address";
    /** Prefix of keys passed through: {@code spark.creel.conf.creel.block.size} sets {@code creel.block.size}. */
    public static final String PASS_THROUGH_PREFIX = "spark.creel.conf.";
    /** Directory holding {@code creel-site.conf}, used when {@code CREEL_CONF_DIR} is not set. */
    public static final String SITE_DIR = "spark.creel.site.dir";
    /** Directory under which each application keeps its shuffle data. */
    public static final String ROOT = "spark.creel.shuffle.root";
    public static final String ROOT_DEFAULT = "/spark-shuffle";
    /** Storage class of map output files ("" inherits: the cluster's order, DRAM first). */
    public static final String STORAGE_CLASS = "spark.creel.shuffle.storageClass";
    /** Whether map outputs prefer the storage servers of the writing host (the mapped same-host path). */
    public static final String PREFER_LOCAL = "spark.creel.shuffle.preferLocal";
    /** Bytes a reduce task reads ahead; default {@code spark.reducer.maxSizeInFlight}. */
    public static final String MAX_BYTES_IN_FLIGHT = "spark.creel.shuffle.maxBytesInFlight";
    /** Largest single read request; a partition larger than this is read in chunks of this size. */
    public static final String READ_CHUNK = "spark.creel.shuffle.readChunk";
    public static final String READ_CHUNK_DEFAULT = "4m";
    /** Bytes of map-output indexes an executor keeps (each map output's index is read once per executor). */
    public static final String INDEX_CACHE = "spark.creel.shuffle.indexCacheSize";
    public static final String INDEX_CACHE_DEFAULT = "64m";
    /** How often the driver marks its application live (the crashed-application cleaner reads it). */
    public static final String HEARTBEAT = "spark.creel.shuffle.heartbeatInterval";
    public static final String HEARTBEAT_DEFAULT = "30s";

    private final CreelConf creel;
    private final String root;
    private final String storageClass;
    private final boolean preferLocal;
    private final long maxBytesInFlight;
    private final int readChunk;
    private final long indexCacheBytes;
    private final Duration heartbeat;

    private SparkCreelConf(CreelConf creel, String root, String storageClass, boolean preferLocal,
                           long maxBytesInFlight, int readChunk, long indexCacheBytes, Duration heartbeat) {
        this.creel = creel;
        this.root = root;
        this.storageClass = storageClass;
        this.preferLocal = preferLocal;
        this.maxBytesInFlight = maxBytesInFlight;
        this.readChunk = readChunk;
        this.indexCacheBytes = indexCacheBytes;
        this.heartbeat = heartbeat;
    }

    /** Reads every {@code spark.creel.*} key of {@code conf}; a bad value is a CONFIGURATION error naming the key. */
    public static SparkCreelConf from(SparkConf conf) {
        Map<String, String> overrides = new LinkedHashMap<>();
        for (Tuple2<String, String> kv : conf.getAllWithPrefix(PASS_THROUGH_PREFIX)) {
            overrides.put(kv._1(), kv._2());
        }
        String nn = conf.get(NAMENODE_ADDRESS, "").trim();
        if (!nn.isEmpty()) {
            overrides.put(ConfKeys.NAMENODE_ADDRESS.name(), nn);
        }
        String siteDir = conf.get(SITE_DIR, "").trim();
        CreelConf creel = CreelConf.load(CreelConf.locateSiteFile(siteDir.isEmpty() ? null : Path.of(siteDir)),
                overrides);
        String root = rootDirectory(conf, ROOT, ROOT_DEFAULT);
        String inFlightDefault = conf.get("spark.reducer.maxSizeInFlight", "48m");
        long inFlight = size(conf, MAX_BYTES_IN_FLIGHT, inFlightDefault, "m", 64 << 10, 1L << 40);
        int chunk = (int) size(conf, READ_CHUNK, READ_CHUNK_DEFAULT, "", 64 << 10, 256 << 20);
        long indexCache = size(conf, INDEX_CACHE, INDEX_CACHE_DEFAULT, "", 0, 1L << 40);
        Duration heartbeat;
        String hb = conf.get(HEARTBEAT, HEARTBEAT_DEFAULT);
        try {
            heartbeat = ConfValues.parseDuration(hb);
            if (heartbeat.isZero() || heartbeat.isNegative()) {
                throw new IllegalArgumentException("must be positive");
            }
        } catch (RuntimeException e) {
            throw bad(HEARTBEAT, hb, e);
        }
        String pl = conf.get(PREFER_LOCAL, "true").trim();
        if (!pl.equals("true") && !pl.equals("false")) {
            throw bad(PREFER_LOCAL, pl, new IllegalArgumentException("must be true or false"));
        }
        return new SparkCreelConf(creel, root, conf.get(STORAGE_CLASS, "").trim(), Boolean.parseBoolean(pl),
                inFlight, chunk, indexCache, heartbeat);
    }

    /** A size key; a bare number means {@code bareUnit} (Spark's maxSizeInFlight is in MiB when bare). */
    private static long size(SparkConf conf, String key, String dflt, String bareUnit, long min, long max) {
        String v = conf.get(key, dflt).trim();
        try {
            long n = ConfValues.parseSize(v.matches("\\d+") ? v + bareUnit : v);
            if (n < min || n > max) {
                throw new IllegalArgumentException("must be between " + ConfValues.formatSize(min) + " and "
                        + ConfValues.formatSize(max));
            }
            return n;
        } catch (RuntimeException e) {
            throw bad(key, v, e);
        }
    }

    /**
     * The directory {@code key} names (default {@code fallback}), normalised; a bad path or {@code /}
     * (cleanup removes the whole directory) is a CONFIGURATION error naming the key.
     */
    public static String rootDirectory(SparkConf conf, String key, String fallback) {
        String root = conf.get(key, fallback).trim();
        try {
            PathName p = PathName.parse(root);
            if (p.isRoot()) {
                throw new IllegalArgumentException("must not be / (cleanup removes the whole directory)");
            }
            return p.toString();
        } catch (RuntimeException e) {
            throw bad(key, root, e);
        }
    }

    private static CreelException bad(String key, String value, RuntimeException e) {
        return new CreelException(ErrorCode.CONFIGURATION, key + " = '" + value + "': " + e.getMessage(), e);
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

    public long maxBytesInFlight() {
        return maxBytesInFlight;
    }

    public int readChunk() {
        return readChunk;
    }

    public long indexCacheBytes() {
        return indexCacheBytes;
    }

    public Duration heartbeat() {
        return heartbeat;
    }
}
