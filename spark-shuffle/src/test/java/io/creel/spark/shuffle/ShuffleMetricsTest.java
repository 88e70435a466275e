package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.spark.common.CreelTestCluster;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.apache.spark.HashPartitioner;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.executor.TaskMetrics;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/** Spark's shuffle read and write metrics tell the truth about what went through Creel. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ShuffleMetricsTest {
    private static CreelTestCluster creel;

    @BeforeAll
    static void start() {
        creel = CreelTestCluster.start(128L << 20, 256L << 20);
    }

    @AfterAll
    static void stop() {
        if (creel != null) {
            creel.close();
        }
    }

    /** Sums of the task metrics Spark's UI shows. */
    private static final class Totals extends SparkListener {
        final AtomicLong bytesWritten = new AtomicLong();
        final AtomicLong recordsWritten = new AtomicLong();
        final AtomicLong writeTimeNanos = new AtomicLong();
        final AtomicLong bytesRead = new AtomicLong();
        final AtomicLong recordsRead = new AtomicLong();
        final AtomicLong blocksFetched = new AtomicLong();
        final AtomicLong fetchWaitMillis = new AtomicLong(-1);

        @Override
        public void onTaskEnd(SparkListenerTaskEnd e) {
            TaskMetrics m = e.taskMetrics();
            if (m == null) {
                return;
            }
            bytesWritten.addAndGet(m.shuffleWriteMetrics().bytesWritten());
            recordsWritten.addAndGet(m.shuffleWriteMetrics().recordsWritten());
            writeTimeNanos.addAndGet(m.shuffleWriteMetrics().writeTime());
            bytesRead.addAndGet(m.shuffleReadMetrics().totalBytesRead());
            recordsRead.addAndGet(m.shuffleReadMetrics().recordsRead());
            blocksFetched.addAndGet(m.shuffleReadMetrics().totalBlocksFetched());
            fetchWaitMillis.accumulateAndGet(m.shuffleReadMetrics().fetchWaitTime(), (a, b) -> Math.max(a, 0) + b);
        }
    }

    @Test
    void rddShuffleWriteAndReadMetricsMatchWhatWasShuffled() throws Exception {
        int n = 30_000;
        Totals totals = new Totals();
        try (JavaSparkContext sc = new JavaSparkContext(creel.sparkConf("local[2]", "metrics"))) {
            sc.sc().addSparkListener(totals);
            long count = sc.parallelize(IntStream.range(0, n).boxed().toList(), 4)
                    .mapToPair(i -> new Tuple2<>(i, "value-" + i)).partitionBy(new HashPartitioner(5)).count();
            assertEquals(n, count);
            sc.sc().listenerBus().waitUntilEmpty(10_000);
        }
        assertEquals(n, totals.recordsWritten.get(), "records written");
        assertEquals(n, totals.recordsRead.get(), "records read");
        assertTrue(totals.bytesWritten.get() > 0, "bytes written");
        assertEquals(totals.bytesWritten.get(), totals.bytesRead.get(),
                "every byte written is read once (every partition of every map has data)");
        assertEquals(4 * 5, totals.blocksFetched.get(), "one block per (map, reduce partition)");
        assertTrue(totals.writeTimeNanos.get() > 0, "write time");
        assertTrue(totals.fetchWaitMillis.get() >= 0, "fetch wait time reported");
    }

    @Test
    void sqlShuffleMetricsCountRowsReadAndWritten() throws Exception {
        Totals totals = new Totals();
        SparkSession spark = SparkSession.builder().config(creel.sparkConf("local[2]", "sql-metrics")
                .set("spark.sql.adaptive.enabled", "false")).getOrCreate();
        try {
            spark.sparkContext().addSparkListener(totals);
            long groups = spark.range(0, 40_000, 1, 4).selectExpr("id % 1000 AS k").repartition(6).count();
            assertEquals(40_000, groups);
            spark.sparkContext().listenerBus().waitUntilEmpty(10_000);
        } finally {
            spark.stop();
        }
        assertTrue(totals.recordsWritten.get() >= 40_000, "rows written: " + totals.recordsWritten.get());
        assertEquals(totals.recordsWritten.get(), totals.recordsRead.get(), "rows read");
        assertEquals(totals.bytesWritten.get(), totals.bytesRead.get(), "bytes read");
    }
}
