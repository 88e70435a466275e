package io.creel.spark.broadcast;

import io.creel.spark.shuffle.SparkCreelConf;
import org.apache.spark.SparkConf;

/**
 * The {@code spark.creel.broadcast.*} keys. The Creel client settings ({@code spark.creel.namenode.address},
 * {@code spark.creel.conf.*}, {@code creel-site.conf}) are the shuffle plugin's: {@link SparkCreelConf} owns them.
 */
public final class BroadcastSettings {
    /** Directory holding every application's broadcasts. */
    public static final String ROOT = "spark.creel.broadcast.root";
    public static final String ROOT_DEFAULT = "/spark-broadcast";
    /** Storage class of broadcast Files ("" inherits: the cluster's order, DRAM first). */
    public static final String STORAGE_CLASS = "spark.creel.broadcast.storageClass";

    private final SparkCreelConf client;
    private final String root;
    private final String storageClass;

    private BroadcastSettings(SparkCreelConf client, String root, String storageClass) {
        this.client = client;
        this.root = root;
        this.storageClass = storageClass;
    }

    /** Reads the keys; a bad value is a CONFIGURATION error naming the key. */
    public static BroadcastSettings from(SparkConf conf) {
        String root = SparkCreelConf.rootDirectory(conf, ROOT, ROOT_DEFAULT);
        return new BroadcastSettings(SparkCreelConf.from(conf), root, conf.get(STORAGE_CLASS, "").trim());
    }

    /** The Creel client settings. */
    public SparkCreelConf client() {
        return client;
    }

    /** Directory of all applications' broadcasts, e.g. {@code /spark-broadcast}. */
    public String root() {
        return root;
    }

    public String storageClass() {
        return storageClass;
    }
}
