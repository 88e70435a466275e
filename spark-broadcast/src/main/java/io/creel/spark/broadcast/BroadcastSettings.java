package io.creel.spark.broadcast;

import io.creel.client.integration.FrameworkSettings;
import io.creel.spark.common.SparkCreelConf;
import org.apache.spark.SparkConf;

/**
 * The {@code spark.creel.broadcast.*} keys. The Creel client settings ({@code spark.creel.namenode.address},
 * {@code spark.creel.conf.*}, {@code creel-site.conf}) are the shuffle plugin's: {@link SparkCreelConf} owns them.
 */
public final class BroadcastSettings {
    /** Directory holding every application's broadcasts. */
    public static final String ROOT = SparkCreelConf.PREFIX + "broadcast.root";
    public static final String ROOT_DEFAULT = "/spark-broadcast";
    /**
     * Storage class of broadcast Files ("" inherits: the cluster's order, DRAM first); the earlier
     * spelling {@code spark.creel.broadcast.storageClass} still works, with a warning.
     */
    public static final String STORAGE_CLASS = SparkCreelConf.PREFIX + "broadcast." + FrameworkSettings.STORAGE_CLASS;

    private final SparkCreelConf client;
    private final String root;
    private final String storageClass;
    private final int replication;

    private BroadcastSettings(SparkCreelConf client, String root, String storageClass, int replication) {
        this.replication = replication;
        this.client = client;
        this.root = root;
        this.storageClass = storageClass;
    }

    /** Reads the keys; a bad value is a CONFIGURATION error naming the key. */
    public static BroadcastSettings from(SparkConf conf) {
        FrameworkSettings s = SparkCreelConf.settings(conf);
        String root = SparkCreelConf.rootDirectory(s, "broadcast.root", ROOT_DEFAULT);
        return new BroadcastSettings(SparkCreelConf.from(conf), root,
                s.storageClass("broadcast.", "broadcast.storageClass"), s.replication("broadcast."));
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

    /** Copies of each broadcast block ({@code spark.creel.broadcast.replication}); 0 leaves it to the client. */
    public int replication() {
        return replication;
    }
}
