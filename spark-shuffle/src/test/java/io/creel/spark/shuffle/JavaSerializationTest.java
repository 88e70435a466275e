package io.creel.spark.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.spark.common.CreelTestCluster;
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
 * A serializer that cannot relocate serialized records (Java serialization) goes through Creel too,
 * never silently onto the local disk: its map tasks keep records as objects and write each
 * partition piece as a serialization stream of its own, next to Kryo shuffles in the same
 * application.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class JavaSerializationTest {
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
    void aJavaSerializedShuffleGoesThroughCreelWithTheRightResult() {
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
        Map<Integer, Long> javaResult = new TreeMap<>(javaSer.collectAsMap());
        assertEquals(expected(), creelResult);
        assertEquals(expected(), javaResult);

        assertInstanceOf(CreelShuffleHandle.class, viaCreel.shuffleHandle());
        // The reduceByKey keeps the ShuffledRDD's partitioner, so the Java-serialized shuffle is the only one.
        ShuffleDependency<?, ?, ?> javaDep = CreelShuffleInspector.shuffleOf(javaSer);
        assertTrue(javaDep.serializer() instanceof JavaSerializer);
        CreelShuffleHandle<?, ?, ?> h = assertInstanceOf(CreelShuffleHandle.class, javaDep.shuffleHandle());
        assertEquals(CreelShuffleHandle.WriterKind.OBJECTS, h.writerKind());
        assertEquals(3, CreelShuffleInspector.mapFiles(CreelShuffleInspector.manager().client(), h.directory()).size(),
                "one Creel File per map task");
        assertTrue(CreelShuffleInspector.manager().fallbacks().isEmpty());
    }
}
