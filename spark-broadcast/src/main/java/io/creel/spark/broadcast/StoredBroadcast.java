package io.creel.spark.broadcast;

import org.apache.spark.SparkEnv;
import org.apache.spark.broadcast.Broadcast;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * A broadcast whose value lives in one Creel File. The driver keeps the value it was given; a
 * deserialized copy (in a task) asks {@link BroadcastReader}, which reads the File once per
 * executor and keeps the value in the executor's block manager for every later task. Only the
 * id, the File's path and its length travel with the task.
 */
public final class StoredBroadcast<T> extends Broadcast<T> {
    private static final long serialVersionUID = 1L;

    private final String path;
    private final long length;
    private final ClassTag<T> tag;
    private transient volatile boolean loaded;
    private transient T value;

    StoredBroadcast(long id, String path, long length, T value, ClassTag<T> tag) {
        super(id, tag);
        this.path = path;
        this.length = length;
        this.tag = tag;
        this.value = value;
        this.loaded = true;
    }

    /**
     * A handle on an existing broadcast File, for forms that carry a broadcast by its id, path and
     * length rather than by Java serialization (the SQL relation); its value is read on first use.
     */
    @SuppressWarnings("unchecked")
    public static <T> StoredBroadcast<T> reattach(long id, String path, long length) {
        StoredBroadcast<T> b = new StoredBroadcast<>(id, path, length, null, (ClassTag<T>) ClassTag$.MODULE$.AnyRef());
        b.loaded = false;
        return b;
    }

    /** Whether this copy holds its value already (the driver's always does). */
    public boolean isLoaded() {
        return loaded;
    }

    /** The Creel File holding the serialized value. */
    public String path() {
        return path;
    }

    /** Bytes of the serialized value in Creel. */
    public long storedBytes() {
        return length;
    }

    @Override
    public T getValue() {
        if (!loaded) {
            synchronized (this) {
                if (!loaded) {
                    value = BroadcastReader.read(id(), path, length, tag);
                    loaded = true;
                }
            }
        }
        return value;
    }

    /** Drops the executors' copies (and the driver block manager's, which holds the tasks' copies in local mode). */
    @Override
    public void doUnpersist(boolean blocking) {
        SparkEnv env = SparkEnv.get();
        if (env != null) {
            env.blockManager().master().removeBroadcast(id(), true, blocking);
        }
    }

    /** Drops the executors' copies and removes the File; the value is gone from the driver too. */
    @Override
    public void doDestroy(boolean blocking) {
        doUnpersist(blocking);
        DriverBroadcasts.removeIfActive(id(), path);
        synchronized (this) {
            value = null;
        }
    }

    @Override
    public String toString() {
        return "CreelBroadcast(" + id() + ", " + path + ")";
    }
}
