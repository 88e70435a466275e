package io.creel.spark.shuffle.write;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.apache.spark.scheduler.MapStatus;
import org.apache.spark.scheduler.MapStatus$;
import org.apache.spark.storage.BlockManagerId;

/**
 * Makes a {@link MapStatus} on every supported Spark line: Spark 4.0's factory takes (location,
 * sizes, map id), 4.1 added a fourth argument (a checksum of the map's rows, 0 when not computed),
 * and one jar must run on both.
 */
final class MapStatuses {
    private static final Method APPLY = find();

    private MapStatuses() {
    }

    private static Method find() {
        Method three = null;
        for (Method m : MapStatus$.class.getMethods()) {
            Class<?>[] p = m.getParameterTypes();
            if (!m.getName().equals("apply") || p.length < 3 || p[0] != BlockManagerId.class || p[1] != long[].class
                    || p[2] != long.class) {
                continue;
            }
            if (p.length == 4 && p[3] == long.class) {
                return m;
            }
            if (p.length == 3) {
                three = m;
            }
        }
        if (three == null) {
            throw new IllegalStateException("this Spark's MapStatus has no factory (location, sizes, map id)");
        }
        return three;
    }

    /** The status of a map task attempt {@code mapId} at {@code location} with these partition sizes. */
    static MapStatus of(BlockManagerId location, long[] sizes, long mapId) {
        try {
            return APPLY.getParameterCount() == 4
                    ? (MapStatus) APPLY.invoke(MapStatus$.MODULE$, location, sizes, mapId, 0L)
                    : (MapStatus) APPLY.invoke(MapStatus$.MODULE$, location, sizes, mapId);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot call " + APPLY, e);
        } catch (InvocationTargetException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException("making a map status failed", c);
        }
    }
}
