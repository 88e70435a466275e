package io.creel.spark.common;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.SparkConf;

/**
 * Settings for Spark's {@code local-cluster[workers,cores,memory]} master: a standalone master and
 * workers in the test JVM, each executor a separate JVM on this host. Executors get the test class
 * path; {@code SPARK_HOME} (set by the build to {@code target/spark-home}) needs a {@code jars/}
 * directory, which stays empty.
 */
public final class LocalClusterMode {
    private LocalClusterMode() {
    }

    public static String master(int executors, int memoryMb) {
        return "local-cluster[" + executors + ",1," + memoryMb + "]";
    }

    public static SparkConf prepare(SparkConf conf, String... executorJavaOptions) {
        String home = System.getenv("SPARK_HOME");
        if (home == null) {
            throw new IllegalStateException("SPARK_HOME is not set (the build sets it to target/spark-home)");
        }
        try {
            Files.createDirectories(Path.of(home, "jars"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return conf.set("spark.home", home)
                .set("spark.executor.extraClassPath", System.getProperty("java.class.path"))
                .set("spark.executor.extraJavaOptions", String.join(" ", executorJavaOptions))
                .set("spark.executor.memory", conf.get("spark.executor.memory", "1g"));
    }
}
