package io.creel.spark.shuffle.write;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.time.Duration;
import java.util.Map;
import org.apache.spark.TaskContext;
import org.apache.spark.shuffle.ShuffleWriteMetricsReporter;
import org.apache.spark.shuffle.api.ShuffleExecutorComponents;
import org.apache.spark.shuffle.api.ShuffleMapOutputWriter;

/**
 * The {@link ShuffleExecutorComponents} handed to Spark's own shuffle writers (sort, bypass-merge,
 * serialized) for one map task: they sort, combine and spill exactly as in Spark's sort shuffle,
 * and write the result through a {@link CreelMapOutputWriter} into the shuffle's Creel directory.
 * Made per task by the shuffle manager, which knows the shuffle's directory and the map index.
 */
public final class CreelMapOutputWriters implements ShuffleExecutorComponents {
    private final CreelClient client;
    private final String shuffleDir;
    private final int mapIndex;
    private final CreateOptions placement;
    private final Duration timeout;
    private final ShuffleWriteMetricsReporter metrics;
    private final TaskContext context;

    public CreelMapOutputWriters(CreelClient client, String shuffleDir, int mapIndex, CreateOptions placement,
                                 Duration timeout, ShuffleWriteMetricsReporter metrics, TaskContext context) {
        this.context = context;
        this.client = client;
        this.shuffleDir = shuffleDir;
        this.mapIndex = mapIndex;
        this.placement = placement;
        this.timeout = timeout;
        this.metrics = metrics;
    }

    /** Nothing to set up: the shuffle manager owns the Creel client. */
    @Override
    public void initializeExecutor(String appId, String execId, Map<String, String> extraConfigs) {
    }

    /**
     * A writer for this task's output. Spark's sort writer does not abort its map output writer when
     * it fails half-way, so the writer also aborts itself when the task ends without a commit: a
     * failed attempt's partial file is deleted at once rather than when its shuffle goes.
     */
    @Override
    public ShuffleMapOutputWriter createMapOutputWriter(int shuffleId, long mapTaskId, int numPartitions) {
        CreelMapOutputWriter w = new CreelMapOutputWriter(client, ShufflePaths.mapOutput(shuffleDir, mapIndex,
                mapTaskId), numPartitions, placement, timeout, metrics);
        if (context != null) {
            context.addTaskCompletionListener((org.apache.spark.util.TaskCompletionListener) ctx -> w.abortIfUncommitted());
        }
        return w;
    }
}
