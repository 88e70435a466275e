package io.creel.spark.broadcast;

import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * Broadcasts through Creel, on a stock Spark: {@code CreelBroadcast.broadcast(sc, value)} in
 * place of {@code sc.broadcast(value)}. The driver writes the serialized value to Creel once;
 * each executor reads it once and keeps it for its tasks. The result is an ordinary
 * {@link Broadcast}: {@code value()}, {@code unpersist()} (drops the executors' copies; the next
 * use reads Creel again) and {@code destroy()} (removes the Creel data) behave as Spark's.
 * Needs {@link CreelBroadcastPlugin} in {@code spark.plugins}.
 */
public final class CreelBroadcast {
    private CreelBroadcast() {
    }

    /**
     * Writes {@code value} to Creel with Spark's serializer ({@code spark.serializer}).
     *
     * @throws IllegalStateException when the plugin is not loaded or the application ended
     * @throws CreelBroadcastException when Creel cannot take the value (nothing is left in Creel)
     */
    public static <T> Broadcast<T> broadcast(SparkContext sc, T value) {
        return DriverBroadcasts.of(sc).broadcast(value, anyTag());
    }

    /** {@link #broadcast(SparkContext, Object)} for Java programs. */
    public static <T> Broadcast<T> broadcast(JavaSparkContext sc, T value) {
        return broadcast(sc.sc(), value);
    }

    /** Whether {@code b} keeps its value in Creel (made here) rather than being one of Spark's own broadcasts. */
    public static boolean isCreel(Broadcast<?> b) {
        return b instanceof StoredBroadcast;
    }

    @SuppressWarnings("unchecked")
    private static <T> ClassTag<T> anyTag() {
        // Spark's serializers write the runtime class themselves; the tag is only carried along.
        return (ClassTag<T>) ClassTag$.MODULE$.AnyRef();
    }
}
