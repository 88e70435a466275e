package io.creel.spark.bundle;

import io.creel.spark.broadcast.CreelBroadcast;
import io.creel.spark.broadcast.sql.CreelRelationMode;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * The job {@link ShadedJarIT} runs in a fresh JVM (Spark's jars plus the shaded jar): an RDD
 * aggregation and a SQL GROUP BY through Creel, a Creel broadcast and a broadcast join. Prints one line per result and where the shuffle
 * manager was loaded from. Args: the namenode address.
 */
public final class ShadedJarJob {
    private ShadedJarJob() {
    }

    public static void main(String[] args) {
        SparkConf conf = new SparkConf().setMaster("local[2]").setAppName("shaded-jar")
                .set("spark.shuffle.manager", "io.creel.spark.shuffle.CreelShuffleManager")
                .set("spark.creel.namenode.address", args[0])
                .set("spark.creel.conf.creel.block.size", "64k")
                .set("spark.serializer", "org.apache.spark.serializer.KryoSerializer")
                .set("spark.plugins", "io.creel.spark.broadcast.CreelBroadcastPlugin")
                .set("spark.sql.extensions", "io.creel.spark.broadcast.sql.CreelSqlExtensions")
                .set("spark.ui.enabled", "false")
                .set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
        SparkSession spark = SparkSession.builder().config(conf).getOrCreate();
        try {
            JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
            List<Tuple2<Integer, Long>> sums = sc.parallelize(IntStream.range(0, 10_000).boxed().toList(), 4)
                    .mapToPair(i -> new Tuple2<>(i % 3, (long) i)).reduceByKey(Long::sum, 3).sortByKey().collect();
            System.out.println("rdd " + sums);
            System.out.println("sql " + spark.range(0, 10_000, 1, 4).selectExpr("id % 3 AS k").groupBy("k").count()
                    .orderBy("k").collectAsList());
            Broadcast<long[]> squares = CreelBroadcast.broadcast(sc, LongStream.range(0, 100).map(i -> i * i).toArray());
            System.out.println("broadcast " + sc.parallelize(IntStream.range(0, 100).boxed().toList(), 4)
                    .map(i -> squares.value()[i]).reduce(Long::sum) + " from "
                    + squares.getClass().getProtectionDomain().getCodeSource().getLocation());
            System.out.println("join " + spark.sql("SELECT /*+ BROADCAST(b) */ count(*) FROM range(1000) a "
                    + "JOIN range(10) b ON a.id = b.id").collectAsList() + " stored " + CreelRelationMode.stored());
            Object manager = SparkEnv.get().shuffleManager();
            System.out.println("manager " + manager.getClass().getName() + " from "
                    + manager.getClass().getProtectionDomain().getCodeSource().getLocation());
        } finally {
            spark.stop();
        }
    }
}
