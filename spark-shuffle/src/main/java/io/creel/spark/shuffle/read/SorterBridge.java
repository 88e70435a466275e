package io.creel.spark.shuffle.read;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import org.apache.spark.Aggregator;
import org.apache.spark.Partitioner;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.util.collection.ExternalSorter;
import scala.Option;
import scala.math.Ordering;

/**
 * Makes Spark's {@link ExternalSorter} (the reduce-side sort that spills under memory pressure) on
 * every supported Spark line. Spark 4.1 added a sixth constructor parameter (row-based checksums);
 * the constructor is found once, when this class loads, and called through a method handle.
 */
final class SorterBridge {
    private static final MethodHandle CONSTRUCTOR;
    /** The extra trailing argument of the 4.1+ constructor (an empty checksum array), or null on 4.0. */
    private static final Object EXTRA;

    static {
        Constructor<?> found = null;
        for (Constructor<?> c : ExternalSorter.class.getConstructors()) {
            Class<?>[] p = c.getParameterTypes();
            boolean prefix = p.length >= 5 && p[0] == TaskContext.class && p[1] == Option.class
                    && p[2] == Option.class && p[3] == Option.class && p[4] == Serializer.class;
            if (prefix && (p.length == 5 || (p.length == 6 && p[5].isArray()))
                    && (found == null || p.length < found.getParameterCount())) {
                found = c;
            }
        }
        if (found == null) {
            throw new ExceptionInInitializerError("this Spark's ExternalSorter has no constructor "
                    + "(TaskContext, Option, Option, Option, Serializer[, array]): an unsupported Spark version");
        }
        EXTRA = found.getParameterCount() == 6
                ? Array.newInstance(found.getParameterTypes()[5].getComponentType(), 0) : null;
        try {
            MethodHandle h = MethodHandles.publicLookup().unreflectConstructor(found);
            CONSTRUCTOR = h.asType(h.type().changeReturnType(ExternalSorter.class));
        } catch (IllegalAccessException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private SorterBridge() {
    }

    /** A sorter by {@code ordering}, combining with {@code aggregator} if defined; no partitioner (one reduce output). */
    @SuppressWarnings("unchecked")
    static <K, V, C> ExternalSorter<K, V, C> create(TaskContext context, Option<Aggregator<K, V, C>> aggregator,
                                                    Ordering<K> ordering, Serializer serializer) {
        Option<Partitioner> none = Option.empty();
        try {
            if (EXTRA == null) {
                return (ExternalSorter<K, V, C>) (ExternalSorter<?, ?, ?>) CONSTRUCTOR.invoke(context, aggregator,
                        none, Option.apply(ordering), serializer);
            }
            return (ExternalSorter<K, V, C>) (ExternalSorter<?, ?, ?>) CONSTRUCTOR.invoke(context, aggregator, none,
                    Option.apply(ordering), serializer, EXTRA);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("could not make Spark's ExternalSorter", t);
        }
    }

    /** Which constructor was found: 5 (Spark 4.0) or 6 parameters (4.1 and later). */
    static int constructorArity() {
        return EXTRA == null ? 5 : 6;
    }
}
