package io.creel.spark.broadcast;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.client.Futures;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.spark.common.CreelTestCluster;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.zip.CRC32C;
import org.apache.spark.SparkConf;

/** Settings and namespace checks shared by the broadcast tests. */
final class BroadcastFixture {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private BroadcastFixture() {
    }

    /** The test cluster's settings (Spark's own shuffle) plus the broadcast plugin. */
    static SparkConf conf(CreelTestCluster creel, String master, String app) {
        return creel.clientConf(master, app).set("spark.plugins", CreelBroadcastPlugin.class.getName());
    }

    /** Names under {@code dir}, or null when {@code dir} does not exist. */
    static List<String> children(CreelClient client, String dir) {
        try {
            return Futures.await(client.list(dir), TIMEOUT, "listing " + dir).stream().map(DirectoryEntry::name).toList();
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return null;
            }
            throw e;
        }
    }

    /**
     * What applications left under the broadcast root: their directories and any heartbeats of
     * earlier releases' drivers (the heartbeat table itself, if a test made one, may stay empty).
     */
    static List<String> leftUnderRoot(CreelClient client) {
        List<String> left = new java.util.ArrayList<>();
        List<String> top = children(client, BroadcastSettings.ROOT_DEFAULT);
        for (String name : top == null ? List.<String>of() : top) {
            if (name.equals("_live")) {
                List<String> beats = children(client, BroadcastSettings.ROOT_DEFAULT + "/_live");
                beats.forEach(b -> left.add("_live/" + b));
            } else {
                left.add(name);
            }
        }
        return left;
    }

    static boolean exists(CreelClient client, String path) {
        try {
            Futures.await(client.lookup(path), TIMEOUT, "looking up " + path);
            return true;
        } catch (CreelException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                return false;
            }
            throw e;
        }
    }

    /** A fingerprint of a value that tasks compute on their copy and the test on the original. */
    static String digest(Object v) {
        if (v instanceof byte[] b) {
            CRC32C c = new CRC32C();
            c.update(b);
            return "bytes:" + b.length + ":" + Long.toHexString(c.getValue());
        }
        if (v instanceof long[] l) {
            return "longs:" + l.length + ":" + Arrays.hashCode(l);
        }
        return (v == null ? "null" : v.getClass().getName()) + ":" + Arrays.deepHashCode(new Object[] {v})
                + ":" + String.valueOf(v).length();
    }

    static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new java.util.Random(seed).nextBytes(b);
        return b;
    }
}
