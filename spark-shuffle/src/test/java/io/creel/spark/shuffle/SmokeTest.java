package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.Test;
import scala.Tuple2;

class SmokeTest {
    @Test
    void reduceByKeyThroughCreel() {
        try (CreelTestCluster creel = CreelTestCluster.start(256L << 20, 256L << 20);
             JavaSparkContext sc = new JavaSparkContext(creel.sparkConf("local[2]", "smoke"))) {
            JavaPairRDD<Integer, Long> pairs = sc.parallelize(java.util.stream.IntStream.range(0, 100_000).boxed().toList(), 4)
                    .mapToPair(i -> new Tuple2<>(i % 1000, (long) i));
            List<Tuple2<Integer, Long>> out = pairs.reduceByKey(Long::sum, 7).collect();
            Map<Integer, Long> expected = new TreeMap<>();
            for (int i = 0; i < 100_000; i++) {
                expected.merge(i % 1000, (long) i, Long::sum);
            }
            Map<Integer, Long> got = new TreeMap<>();
            out.forEach(t -> got.put(t._1(), t._2()));
            assertEquals(expected, got);
        }
    }
}
