package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.Futures;
import io.creel.common.namespace.NodeType;
import io.creel.spark.common.CreelTestCluster;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.spark.Success$;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * A reducer reads exactly one committed attempt per map: never a failed attempt's partial output,
 * never two attempts. Failures are injected while Spark's writer is writing into Creel
 * ({@link Poison}), with task retries ({@code local[N,F]}) and with speculative duplicates.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TaskAttemptsTest {
    private static final int N = 40_000;
    private CreelTestCluster creel;
    private JavaSparkContext sc;

    @AfterEach
    void stop() {
        if (sc != null) {
            sc.stop();
        }
        if (creel != null) {
            creel.close();
        }
    }

    private void start(String master, String... settings) {
        creel = CreelTestCluster.start(128L << 20, 256L << 20);
        org.apache.spark.SparkConf conf = creel.sparkConf(master, "attempts")
                .set("spark.kryo.registrator", Poison.Registrator.class.getName());
        for (int i = 0; i < settings.length; i += 2) {
            conf.set(settings[i], settings[i + 1]);
        }
        sc = new JavaSparkContext(conf);
    }

    private static Map<Integer, Long> expected() {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < N; i++) {
            m.merge(i % 101, (long) i, Long::sum);
        }
        return m;
    }

    /** Counts failed task ends. */
    private static final class Failures extends SparkListener {
        final AtomicInteger failed = new AtomicInteger();

        @Override
        public void onTaskEnd(SparkListenerTaskEnd e) {
            if (e.reason() != Success$.MODULE$) {
                failed.incrementAndGet();
            }
        }
    }

    @Test
    void aMapAttemptThatFailsWhileWritingIntoCreelIsRetriedAndItsPartialFileDeleted() throws Exception {
        start("local[2,4]");
        Failures failures = new Failures();
        sc.sc().addSparkListener(failures);
        // Each map's last value is poisoned: its first attempt fails after writing most of its output.
        JavaPairRDD<Integer, Poison> values = sc.parallelize(IntStream.range(0, N).boxed().toList(), 4)
                .mapToPair(i -> new Tuple2<>(i % 101, new Poison(i, i % (N / 4) == N / 4 - 1)));
        JavaPairRDD<Integer, Poison> sums = values.reduceByKey(
                (a, b) -> new Poison(a.value() + b.value(), a.marked() || b.marked()), 3);
        Map<Integer, Long> got = new TreeMap<>();
        for (Tuple2<Integer, Poison> t : sums.collect()) {
            got.put(t._1(), t._2().value());
        }
        assertEquals(expected(), got);
        sc.sc().listenerBus().waitUntilEmpty(10_000);
        assertEquals(4, failures.failed.get(), "every map's first attempt failed");
        String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(sums));
        List<String> files = CreelShuffleInspector.mapFiles(CreelShuffleInspector.manager().client(), dir);
        assertEquals(4, files.size(), "only the committed attempts' files remain: " + files);
    }

    @Test
    void aPartialFileOfAnAttemptThatNeverCommittedIsNeverRead() throws Exception {
        start("local[2]");
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 3)
                .mapToPair(i -> new Tuple2<>(i % 101, (long) i)).reduceByKey(Long::sum, 4);
        sums.count(); // runs the map stage; its outputs stay registered
        String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(sums));
        CreelClient client = CreelShuffleInspector.manager().client();
        // What a killed JVM leaves: another attempt's file for every map, written but never committed,
        // and one committed file of garbage for an attempt the driver never registered.
        for (int map = 0; map < 3; map++) {
            CreelNode f = Futures.await(client.create(dir + "/map-" + map + "-" + (900_000 + map), NodeType.FILE),
                    CreelShuffleInspector.timeout(), "create");
            f.writer().write(java.nio.ByteBuffer.wrap(new byte[5000])).join();
        }
        CreelNode garbage = Futures.await(client.create(dir + "/map-0-999999", NodeType.FILE),
                CreelShuffleInspector.timeout(), "create");
        try (OutputStream out = garbage.outputStream()) {
            out.write(new byte[10_000]);
        }
        Map<Integer, Long> got = new TreeMap<>(sums.collectAsMap());
        assertEquals(expected(), got);
    }

    /**
     * What speculation leaves behind: two attempts of one map that both committed their output, of
     * which the driver registered one. (Spark never runs a speculative copy on the host of the
     * running attempt, so a one-host test cannot make real speculative copies; a first attempt that
     * fails after its output committed leaves the same state.)
     */
    @Test
    void twoCommittedAttemptsOfOneMapAreReadOnce() throws Exception {
        start("local[2,4]");
        JavaPairRDD<Integer, Long> sums = sc.parallelize(IntStream.range(0, N).boxed().toList(), 4)
                .mapPartitionsToPair(it -> {
                    org.apache.spark.TaskContext ctx = org.apache.spark.TaskContext.get();
                    if (ctx.partitionId() == 0 && ctx.attemptNumber() == 0) {
                        // Runs after the shuffle writer committed this attempt's file.
                        ctx.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) c -> {
                            throw new IllegalStateException("attempt 0 of map 0 fails after committing");
                        });
                    }
                    java.util.List<Tuple2<Integer, Long>> out = new java.util.ArrayList<>();
                    it.forEachRemaining(i -> out.add(new Tuple2<>(i % 101, (long) i)));
                    return out.iterator();
                }).reduceByKey(Long::sum, 3);
        assertEquals(expected(), new TreeMap<>(sums.collectAsMap()));
        String dir = CreelShuffleInspector.directoryOf(CreelShuffleInspector.shuffleOf(sums));
        List<String> files = CreelShuffleInspector.mapFiles(CreelShuffleInspector.manager().client(), dir);
        assertEquals(5, files.size(), "map 0 has two committed attempts: " + files);
        assertEquals(2, files.stream().filter(f -> f.startsWith("map-0-")).count(), files.toString());
    }
}
