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
 *  {root}/{appId}/shuffle-{id}/map-{mapIndex}-{mapId}   File: one map task attempt's output
 * </pre>
 *
 * A map task's Spark {@code mapId} is its task attempt id (unique in the application), so two
 * attempts of one map never share a file.
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

    public static String mapOutput(String shuffleDir, int mapIndex, long mapId) {
        return shuffleDir + "/map-" + mapIndex + "-" + mapId;
    }
}
