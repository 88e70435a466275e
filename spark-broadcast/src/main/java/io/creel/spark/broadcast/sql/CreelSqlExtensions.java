package io.creel.spark.broadcast.sql;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.execution.ColumnarRule;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import scala.runtime.AbstractFunction1;
import scala.runtime.BoxedUnit;

/**
 * {@code spark.sql.extensions=io.creel.spark.broadcast.sql.CreelSqlExtensions}: broadcast hash
 * joins keep their built relation in Creel ({@link StoreBroadcastRelations}). Needs
 * {@code io.creel.spark.broadcast.CreelBroadcastPlugin} in {@code spark.plugins}; without it every
 * relation falls back to Spark's broadcast, logged.
 */
public final class CreelSqlExtensions extends AbstractFunction1<SparkSessionExtensions, BoxedUnit> {
    @Override
    public BoxedUnit apply(SparkSessionExtensions extensions) {
        extensions.injectQueryStagePrepRule(StoreBroadcastRelations::new);
        extensions.injectColumnar(session -> new ColumnarRule() {
            private final Rule<SparkPlan> rule = new StoreBroadcastRelations(session);

            @Override
            public Rule<SparkPlan> preColumnarTransitions() {
                return rule;
            }
        });
        return BoxedUnit.UNIT;
    }
}
