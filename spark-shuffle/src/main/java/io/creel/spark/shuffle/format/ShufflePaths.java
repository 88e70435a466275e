package io.creel.spark.shuffle.format;

import io.creel.common.namespace.PathName;

/**
 * Names of the shuffle data in Creel's namespace:
 *
 * <pre>
 *  {root}/                                 Directory, e.g. /spark-shuffle
 *  {root}/_live                            Table: heartbeats of earlier releases' drivers (the cleaner reads them)
 *  {root}/{appId}/                         Directory: one application's shuffles
 *  {root}/{appId}/shuffle-{shuffleId}/     Directory: one shuffle
 *  {root}/{appId}/shuffle-{id}/map-{mapIndex}-{mapId}   File: one map task attempt's output (per-map layout)
 *  {root}/{appId}/shuffle-{id}/part-{p}/               Bag: reduce partition p (merged layout)
 *  {root}/{appId}/shuffle-{id}/part-{p}/{lane}         File: the batches one lane appended for p
 * </pre>
 *
 * A map task's Spark {@code mapId} is its task attempt id (unique in the application), so two
 * attempts of one map never share a file. A lane ({@code e{executorId}-{n}}) is one writer of an
 * executor, used by one map task at a time.
 */
public final class ShufflePaths {
    /** Name of the Table of application heartbeats under the root. */
    public static final String LIVE_TABLE = "_live";
    private static final String SHUFFLE_PREFIX = "shuffle-";

    private ShufflePaths() {
    }

    /** The application's directory; {@code appId} must be a valid name component. */
    public static String appDir(String root, String appId) {
        PathName.checkComponent(root + "/" + appId, appId);
        return root + "/" + appId;
    }

    public static String liveTable(String root) {
        return root + "/" + LIVE_TABLE;
    }

    public static String shuffleDir(String appDir, int shuffleId) {
        return appDir + "/" + SHUFFLE_PREFIX + shuffleId;
    }

    /** The Bag of reduce partition {@code p} in the merged layout. */
    public static String partitionBag(String shuffleDir, int p) {
        return shuffleDir + "/part-" + p;
    }

    /** The name of lane {@code n} of executor {@code executorId}, made a valid name component. */
    public static String laneName(String executorId, int n) {
        return "e" + executorId.replaceAll("[^A-Za-z0-9_.-]", "_") + "-" + n;
    }

    public static String mapOutput(String shuffleDir, int mapIndex, long mapId) {
        return shuffleDir + "/map-" + mapIndex + "-" + mapId;
    }
}
