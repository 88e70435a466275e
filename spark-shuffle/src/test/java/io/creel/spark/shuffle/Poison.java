package io.creel.spark.shuffle;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import org.apache.spark.TaskContext;
import org.apache.spark.serializer.KryoRegistrator;

/**
 * A value whose serialization fails in a task's first attempt when it is marked: it makes a map
 * task fail while Spark's writer is already writing the map output into Creel (values are
 * serialized as they are written), so the attempt leaves a partial file behind.
 */
public record Poison(long value, boolean marked) implements java.io.Serializable {

    /** Registers {@link Poison}'s serializer ({@code spark.kryo.registrator}). */
    public static final class Registrator implements KryoRegistrator {
        @Override
        public void registerClasses(Kryo kryo) {
            kryo.register(Poison.class, new Serializer<Poison>() {
                @Override
                public void write(Kryo k, Output out, Poison p) {
                    TaskContext ctx = TaskContext.get();
                    if (p.marked() && ctx != null && ctx.attemptNumber() == 0) {
                        out.flush(); // the bytes before the poison reach the map output file
                        if (Boolean.getBoolean("creel.test.poison.halt")) {
                            Runtime.getRuntime().halt(17); // an executor killed half-way through writing
                        }
                        throw new IllegalStateException("poisoned value " + p.value() + " in attempt 0 of task "
                                + ctx.taskAttemptId());
                    }
                    out.writeLong(p.value());
                    out.writeBoolean(p.marked());
                }

                @Override
                public Poison read(Kryo k, Input in, Class<Poison> type) {
                    return new Poison(in.readLong(), in.readBoolean());
                }
            });
        }
    }
}
