package io.creel.spark.broadcast.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The physical-plan rule: every broadcast exchange of a hash-join relation gets
 * {@link CreelRelationMode}, unless {@value #ENABLED} is false or the join is a null-aware anti
 * join (Spark's operator tells its special relations apart by identity). Runs after Spark placed
 * the exchanges: as a columnar pre-transition rule without AQE, as a query-stage preparation rule
 * with AQE (also on every re-optimization).
 *
 * <p>It walks the plan itself: the new exchange equals the old one (the modes compare equal on
 * purpose, so the exchange still satisfies the join's {@code BroadcastDistribution} when AQE
 * re-plans), and Spark's {@code transformUp} and {@code withNewChildren} keep an old child that
 * equals its replacement. {@code withNewChildrenInternal} builds the parent unconditionally.
 */
public final class StoreBroadcastRelations extends Rule<SparkPlan> {
    /** Whether broadcast hash joins keep their relation in Creel (read per query, so it can change at run time). */
    public static final String ENABLED = "spark.creel.broadcast.sql.enabled";

    private final SparkSession session;

    public StoreBroadcastRelations(SparkSession session) {
        this.session = session;
    }

    @Override
    public SparkPlan apply(SparkPlan plan) {
        if (!Boolean.parseBoolean(session.conf().get(ENABLED, "true").trim())) {
            return plan;
        }
        return replace(plan);
    }

    private static SparkPlan replace(SparkPlan plan) {
        List<SparkPlan> children = CollectionConverters.asJava(plan.children());
        List<SparkPlan> replaced = new ArrayList<>(children.size());
        boolean changed = false;
        for (SparkPlan c : children) {
            SparkPlan r = replace(c);
            changed |= r != c;
            replaced.add(r);
        }
        SparkPlan p = plan;
        if (changed) {
            p = plan.withNewChildrenInternal(CollectionConverters.asScala(replaced).toIndexedSeq());
            p.copyTagsFrom(plan);
        }
        if (p instanceof BroadcastExchangeExec e && e.mode() instanceof HashedRelationBroadcastMode m
                && !(m instanceof CreelRelationMode) && !m.isNullAware()) {
            BroadcastExchangeExec stored = e.copy(new CreelRelationMode(m), e.child());
            stored.copyTagsFrom(e);
            return stored;
        }
        return p;
    }
}
