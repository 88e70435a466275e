package io.creel.spark.broadcast.sql;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.creel.spark.broadcast.StoredBroadcast;
import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.execution.joins.ValueRowWithKeyIndex;
import scala.collection.Iterator;

/**
 * What Spark's broadcast exchange broadcasts when the relation is in Creel: a few bytes naming
 * the relation's File. Spark ships it with its own broadcast; on an executor the first use reads
 * the real relation from Creel (once per executor, see {@code BroadcastReader}) and every method
 * delegates to it. {@link #asReadOnlyCopy()} returns this type (the join's generated code declares
 * its field with the class of the driver's value).
 */
public final class CreelHashedRelation implements HashedRelation, Externalizable, KryoSerializable {
    private static final long serialVersionUID = 1L;

    private StoredBroadcast<HashedRelation> stored;
    /** A task's read-only copy; null in the shared instance, which delegates to the broadcast's value. */
    private transient HashedRelation local;

    /** For deserialization. */
    public CreelHashedRelation() {
    }

    CreelHashedRelation(StoredBroadcast<HashedRelation> stored, HashedRelation local) {
        this.stored = stored;
        this.local = local;
    }

    /** The Creel broadcast holding the relation. */
    public StoredBroadcast<HashedRelation> stored() {
        return stored;
    }

    private HashedRelation relation() {
        HashedRelation r = local;
        return r != null ? r : stored.value();
    }

    @Override
    public Iterator<InternalRow> get(InternalRow key) {
        return relation().get(key);
    }

    @Override
    public Iterator<InternalRow> get(long key) {
        return relation().get(key);
    }

    @Override
    public InternalRow getValue(InternalRow key) {
        return relation().getValue(key);
    }

    @Override
    public InternalRow getValue(long key) {
        return relation().getValue(key);
    }

    @Override
    public Iterator<ValueRowWithKeyIndex> getWithKeyIndex(InternalRow key) {
        return relation().getWithKeyIndex(key);
    }

    @Override
    public ValueRowWithKeyIndex getValueWithKeyIndex(InternalRow key) {
        return relation().getValueWithKeyIndex(key);
    }

    @Override
    public Iterator<ValueRowWithKeyIndex> valuesWithKeyIndex() {
        return relation().valuesWithKeyIndex();
    }

    @Override
    public int maxNumKeysIndex() {
        return relation().maxNumKeysIndex();
    }

    @Override
    public boolean keyIsUnique() {
        return relation().keyIsUnique();
    }

    @Override
    public Iterator<InternalRow> keys() {
        return relation().keys();
    }

    @Override
    public CreelHashedRelation asReadOnlyCopy() {
        return new CreelHashedRelation(stored, relation().asReadOnlyCopy());
    }

    @Override
    public void close() {
        HashedRelation r = local;
        if (r != null) {
            r.close();
        }
    }

    /** The relation's size once it is here; before, the bytes it takes in Creel (a close estimate). */
    @Override
    public long estimatedSize() {
        HashedRelation r = local;
        if (r != null) {
            return r.estimatedSize();
        }
        return stored.isLoaded() ? stored.value().estimatedSize() : stored.storedBytes();
    }

    @Override
    public void writeExternal(ObjectOutput out) throws IOException {
        out.writeLong(stored.id());
        out.writeUTF(stored.path());
        out.writeLong(stored.storedBytes());
    }

    @Override
    public void readExternal(ObjectInput in) throws IOException {
        stored = StoredBroadcast.reattach(in.readLong(), in.readUTF(), in.readLong());
    }

    @Override
    public void write(Kryo kryo, Output out) {
        out.writeLong(stored.id());
        out.writeString(stored.path());
        out.writeLong(stored.storedBytes());
    }

    @Override
    public void read(Kryo kryo, Input in) {
        stored = StoredBroadcast.reattach(in.readLong(), in.readString(), in.readLong());
    }

    @Override
    public String toString() {
        return "CreelHashedRelation(" + stored.path() + ")";
    }
}
