package io.creel.spark.shuffle.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** One jar on every Spark line: the reduce-side sorter's constructor is found for the Spark on the class path. */
class SorterBridgeTest {
    @Test
    void theExternalSorterConstructorOfThisSparkLineIsFound() {
        String version = System.getProperty("creel.spark.version", org.apache.spark.package$.MODULE$.SPARK_VERSION());
        int expected = version.startsWith("4.0.") ? 5 : 6;
        assertEquals(expected, SorterBridge.constructorArity(), "Spark " + version);
        assertEquals(org.apache.spark.package$.MODULE$.SPARK_VERSION(), version, "the Spark on the class path");
    }
}
