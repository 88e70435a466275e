package io.creel.spark.shuffle.cleanup;

import io.creel.client.CreelClient;
import io.creel.client.Futures;
import io.creel.spark.shuffle.format.ShufflePaths;
import java.io.PrintStream;

/** Test access to the cleaner's package-private parts. */
public final class StaleShuffleCleanerAccess {
    private StaleShuffleCleanerAccess() {
    }

    /** Writes a heartbeat of {@code app} as if taken at {@code millis}. */
    public static void beat(CreelClient client, String root, String app, long millis) {
        Futures.await(client.putValue(ShufflePaths.liveTable(root), app, ApplicationHeartbeat.encode(millis)),
                client.requestTimeout(), "heartbeat");
    }

    /** The broadcast root the command looks under by default. */
    public static String broadcastRootDefault() {
        return StaleShuffleCleaner.BROADCAST_ROOT_DEFAULT;
    }

    public static int main(String[] args, PrintStream out, PrintStream err) {
        return StaleShuffleCleaner.run(args, out, err);
    }
}
