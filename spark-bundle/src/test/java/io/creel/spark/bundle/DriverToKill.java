package io.creel.spark.bundle;

import io.creel.spark.broadcast.CreelBroadcast;
import io.creel.spark.broadcast.CreelBroadcastPlugin;
import io.creel.spark.common.CreelTestCluster;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import scala.Tuple2;

/**
 * A Spark driver meant to be killed ({@link CrashedDriverCleanupTest}): runs a {@code local[2]} job
 * whose shuffle and broadcast go through Creel, prints {@value #READY} with its application id,
 * and then waits, holding the shuffle and the broadcast, until it is killed (or gives up after
 * {@code maxLife} seconds, so that a test JVM that died first leaves no driver behind).
 *
 * <p>Arguments: the namenode address, {@code maxLife} in seconds, then Spark settings as
 * {@code key=value}.
 */
public final class DriverToKill {
    /** What the driver prints, followed by its application id, once its data is in Creel. */
    public static final String READY = "DRIVER-READY ";

    /** What the driver keeps referenced, so that Spark's ContextCleaner removes none of it before the kill. */
    private static final List<Object> HELD = new java.util.ArrayList<>();

    private DriverToKill() {
    }

    public static void main(String[] args) throws InterruptedException {
        var conf = CreelTestCluster.sparkConf(args[0], "local[2]", "driver-to-kill")
                .set("spark.plugins", CreelBroadcastPlugin.class.getName());
        long maxLifeMillis = Long.parseLong(args[1]) * 1000;
        for (int i = 2; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            conf.set(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        JavaSparkContext sc = new JavaSparkContext(conf);
        Broadcast<int[]> weights = CreelBroadcast.broadcast(sc, IntStream.range(0, 1000).toArray());
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, 10_000).boxed().toList(), 4)
                .mapToPair(i -> new Tuple2<>(i % 10, (long) weights.value()[i % 1000]))
                .reduceByKey(Long::sum, 3);
        long total = sums.values().reduce(Long::sum);
        HELD.add(weights);
        HELD.add(sums);
        System.out.println(READY + sc.sc().applicationId() + " total=" + total);
        System.out.flush();
        Thread.sleep(maxLifeMillis);
        System.err.println("DriverToKill: not killed within " + maxLifeMillis / 1000 + " s, exiting");
        System.exit(3);
    }
}
