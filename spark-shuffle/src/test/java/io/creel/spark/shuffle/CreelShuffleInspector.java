package io.creel.spark.shuffle;

import io.creel.client.CreelClient;
import io.creel.client.DirectoryEntry;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaRDDLike;
import org.apache.spark.rdd.RDD;

/** What a test can see of a shuffle in Creel. */
final class CreelShuffleInspector {
    private CreelShuffleInspector() {
    }

    static CreelShuffleManager manager() {
        return (CreelShuffleManager) SparkEnv.get().shuffleManager();
    }

    /** The nearest shuffle dependency in {@code rdd}'s lineage (through narrow dependencies). */
    static ShuffleDependency<?, ?, ?> shuffleOf(JavaRDDLike<?, ?> rdd) {
        return shuffleOf(rdd.rdd());
    }

    static ShuffleDependency<?, ?, ?> shuffleOf(RDD<?> rdd) {
        org.apache.spark.Dependency<?> d = rdd.dependencies().head();
        return d instanceof ShuffleDependency<?, ?, ?> s ? s : shuffleOf(d.rdd());
    }

    /** The Creel directory of a shuffle, or null if it fell back to the sort shuffle. */
    static String directoryOf(ShuffleDependency<?, ?, ?> dep) {
        return dep.shuffleHandle() instanceof CreelShuffleHandle<?, ?, ?> h ? h.directory() : null;
    }

    /** Names of the map output files in a shuffle directory; empty if the directory is gone. */
    static List<String> mapFiles(CreelClient client, String dir) {
        try {
            return client.list(dir).get(30, TimeUnit.SECONDS).stream().map(DirectoryEntry::name).sorted().toList();
        } catch (java.util.concurrent.ExecutionException e) {
            CreelException c = CreelException.unwrap(e.getCause());
            if (c.code() == ErrorCode.NOT_FOUND) {
                return List.of();
            }
            throw c;
        } catch (Exception e) {
            throw new AssertionError("listing " + dir + " failed", e);
        }
    }

    static boolean exists(CreelClient client, String path) {
        try {
            client.lookup(path).get(30, TimeUnit.SECONDS);
            return true;
        } catch (java.util.concurrent.ExecutionException e) {
            if (CreelException.unwrap(e.getCause()).code() == ErrorCode.NOT_FOUND) {
                return false;
            }
            throw new AssertionError("looking up " + path + " failed", e);
        } catch (Exception e) {
            throw new AssertionError("looking up " + path + " failed", e);
        }
    }

    static Duration timeout() {
        return Duration.ofSeconds(30);
    }
}
