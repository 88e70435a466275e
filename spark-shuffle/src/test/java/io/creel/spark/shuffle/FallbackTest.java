package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.serializer.JavaSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import scala.Tuple2;

/**
 * Shuffles Creel does not take fall back to Spark's sort shuffle, with the reason logged once per
 * shuffle, and still give the right answer: a serializer that cannot relocate serialized records
 * (Java serialization), next to Kryo shuffles that go through Creel in the same application.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FallbackTest {
    private static CreelTestCluster creel;
    private static JavaSparkContext sc;

    @BeforeAll
    static void start() {
        creel = CreelTestCluster.start(128L << 20, 256L << 20);
        sc = new JavaSparkContext(creel.sparkConf("local[2]", "fallback"));
    }

    @AfterAll
    static void stop() {
        if (sc != null) {
            sc.stop();
        }
        if (creel != null) {
            creel.close();
        }
    }

    private static Map<Integer, Long> expected() {
        Map<Integer, Long> m = new TreeMap<>();
        for (int i = 0; i < 20_000; i++) {
            m.merge(i % 313, (long) i, Long::sum);
        }
        return m;
    }

    private static JavaPairRDD<Integer, Long> pairs() {
        return sc.parallelize(IntStream.range(0, 20_000).boxed().toList(), 3).mapToPair(i -> new Tuple2<>(i % 313,
                (long) i));
    }

    @Test
    void javaSerializationFallsBackToSparksSortShuffleWithTheReasonRecordedOnce() {
        // A dependency with its own serializer: Java serialization cannot relocate serialized records.
        JavaPairRDD<Integer, Long> sums = pairs().reduceByKey(Long::sum, 5);
        ShuffleDependency<?, ?, ?> viaCreel = CreelShuffleInspector.shuffleOf(sums);
        JavaPairRDD<Integer, Long> javaSer = JavaPairRDD.fromRDD(
                new org.apache.spark.rdd.ShuffledRDD<Integer, Long, Long>(pairs().rdd(),
                        new org.apache.spark.HashPartitioner(5),
                        scala.reflect.ClassTag$.MODULE$.apply(Integer.class),
                        scala.reflect.ClassTag$.MODULE$.apply(Long.class),
                        scala.reflect.ClassTag$.MODULE$.apply(Long.class))
                        .setSerializer(new JavaSerializer(sc.getConf())),
                scala.reflect.ClassTag$.MODULE$.apply(Integer.class), scala.reflect.ClassTag$.MODULE$.apply(Long.class))
                .reduceByKey(Long::sum);

        Map<Integer, Long> creelResult = new TreeMap<>(sums.collectAsMap());
        Map<Integer, Long> fallbackResult = new TreeMap<>(javaSer.collectAsMap());
        assertEquals(expected(), creelResult);
        assertEquals(expected(), fallbackResult);

        assertInstanceOf(CreelShuffleHandle.class, viaCreel.shuffleHandle());
        // The reduceByKey keeps the ShuffledRDD's partitioner, so the Java-serialized shuffle is the only one.
        ShuffleDependency<?, ?, ?> javaDep = CreelShuffleInspector.shuffleOf(javaSer);
        assertTrue(javaDep.serializer() instanceof JavaSerializer);
        assertFalse(javaDep.shuffleHandle() instanceof CreelShuffleHandle, "Java serialization must not use Creel");
        assertNull(CreelShuffleInspector.directoryOf(javaDep));
        Map<Integer, String> reasons = CreelShuffleInspector.manager().fallbacks();
        String reason = reasons.get(javaDep.shuffleId());
        assertTrue(reason != null && reason.contains("JavaSerializer") && reason.contains("relocate"), reasons.toString());
        assertFalse(reasons.containsKey(viaCreel.shuffleId()));
    }
}
