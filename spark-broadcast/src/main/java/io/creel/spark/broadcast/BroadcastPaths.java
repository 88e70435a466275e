package io.creel.spark.broadcast;

/**
 * Where broadcasts live in Creel: {@code <root>/<appId>/broadcast-<id>}, one File per broadcast
 * holding the value as Spark's serializer wrote it.
 */
public final class BroadcastPaths {
    private static final String PREFIX = "broadcast-";

    private BroadcastPaths() {
    }

    /** The application's directory; {@code appName} is the application id, plus {@code _<attempt>} if any. */
    public static String appDir(String root, String appName) {
        return root + "/" + appName;
    }

    public static String broadcastFile(String appDir, long id) {
        return appDir + "/" + PREFIX + id;
    }
}
