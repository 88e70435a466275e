package io.creel.spark.shuffle.cleanup;

import io.creel.common.net.HostIdentity;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The heartbeat drivers of releases before expiring application directories wrote: the KeyValue
 * {@code {root}/_live/{app}} held the time of the driver's last beat, rewritten every
 * {@code spark.creel.shuffle.heartbeat.interval}. {@link StaleShuffleCleaner} still reads these
 * beats, to remove what those drivers left when they crashed. Drivers of this release write none:
 * their application directories are bound to their Creel session and go with it.
 */
public final class ApplicationHeartbeat {
    private ApplicationHeartbeat() {
    }

    /** The value of a beat taken at {@code millis}. */
    static ByteBuffer encode(long millis) {
        return ByteBuffer.wrap(("beat=" + millis + "\nhost=" + HostIdentity.hostName() + "\n")
                .getBytes(StandardCharsets.UTF_8));
    }

    /** The time of a beat, or -1 if the value is not one. */
    static long decode(ByteBuffer value) {
        String text = StandardCharsets.UTF_8.decode(value.duplicate()).toString();
        for (String line : text.split("\n")) {
            if (line.startsWith("beat=")) {
                try {
                    return Long.parseLong(line.substring(5).trim());
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        return -1;
    }
}
