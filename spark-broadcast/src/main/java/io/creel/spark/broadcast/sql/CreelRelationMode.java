package io.creel.spark.broadcast.sql;

import io.creel.spark.broadcast.CreelBroadcast;
import io.creel.spark.broadcast.StoredBroadcast;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkContext$;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.joins.EmptyHashedRelation$;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode;
import org.apache.spark.sql.execution.joins.HashedRelationWithAllNullKeys$;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import scala.Option;
import scala.collection.Iterator;

/**
 * Spark's hash-join broadcast mode, building the relation exactly as Spark does, then storing it
 * in Creel and handing Spark's broadcast a {@link CreelHashedRelation} that names it. Being a
 * {@link HashedRelationBroadcastMode} (Spark's equality, which ignores the subclass) the exchange
 * still satisfies the join's required distribution, and canonicalizes as Spark's does, so
 * exchange reuse is unchanged. When Creel cannot take the relation, the relation itself is
 * returned (Spark broadcasts it as usual) and the reason is logged and kept ({@link #fallbacks()}).
 */
public final class CreelRelationMode extends HashedRelationBroadcastMode {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(CreelRelationMode.class);
    private static final AtomicLong STORED = new AtomicLong();
    private static final List<String> FALLBACKS = new CopyOnWriteArrayList<>();

    /**
     * The relations this exchange stored. Spark's exchange broadcasts with {@code serializedOnly},
     * so nothing on the driver holds the {@link CreelHashedRelation} after it is serialized; the
     * mode, referenced by the exchange (and its copies) for as long as the query's plan lives,
     * keeps the broadcasts referenced, and the driver's cleaner removes their Files once the plan
     * is gone. Transient: tasks that carry the plan need not carry these.
     */
    private transient List<StoredBroadcast<HashedRelation>> keptAlive;

    public CreelRelationMode(HashedRelationBroadcastMode spark) {
        super(spark.key(), spark.isNullAware());
    }

    /** Relations this JVM stored in Creel. */
    public static long stored() {
        return STORED.get();
    }

    /** Why relations went through Spark's own broadcast instead, one entry per relation. */
    public static List<String> fallbacks() {
        return List.copyOf(FALLBACKS);
    }

    @Override
    public HashedRelation transform(InternalRow[] rows) {
        return store(super.transform(rows));
    }

    @Override
    public HashedRelation transform(Iterator<InternalRow> rows, Option<Object> sizeHint) {
        return store(super.transform(rows, sizeHint));
    }

    private HashedRelation store(HashedRelation relation) {
        // Spark recognises these two by identity (empty-relation and null-aware anti join
        // shortcuts); they are tiny, so they stay as they are.
        if (relation == EmptyHashedRelation$.MODULE$ || relation == HashedRelationWithAllNullKeys$.MODULE$) {
            return relation;
        }
        Option<SparkContext> sc = SparkContext$.MODULE$.getActive();
        if (sc.isEmpty()) {
            return fallBack("no active SparkContext in this JVM", null, relation);
        }
        try {
            StoredBroadcast<HashedRelation> b = (StoredBroadcast<HashedRelation>) CreelBroadcast.broadcast(sc.get(),
                    relation);
            STORED.incrementAndGet();
            synchronized (this) {
                if (keptAlive == null) {
                    keptAlive = new CopyOnWriteArrayList<>();
                }
                keptAlive.add(b);
            }
            return new CreelHashedRelation(b, null);
        } catch (RuntimeException e) {
            return fallBack(e.toString(), e, relation);
        }
    }

    @Override
    public boolean equals(Object o) {
        return super.equals(o); // Spark's equality, deliberately: see the class comment
    }

    @Override
    public int hashCode() {
        return super.hashCode();
    }

    private static HashedRelation fallBack(String reason, Throwable cause, HashedRelation relation) {
        String message = "broadcast relation of " + relation.estimatedSize()
                + " bytes goes through Spark's own broadcast: " + reason;
        LOG.warn(message, cause);
        FALLBACKS.add(message);
        return relation;
    }
}
