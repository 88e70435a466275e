package io.creel.ops.health;

import java.util.List;

/**
 * Whether a daemon serves: what {@code GET /health/ready} answers. A daemon is live as long as its
 * process answers at all; it is ready only once clients can use it.
 */
@FunctionalInterface
public interface Readiness {
    /** Ready: no reason to give. */
    String READY = null;

    /**
     * Why the daemon does not serve yet (one line, naming what it waits for), or {@link #READY}.
     * Called on an HTTP thread for every probe: must be cheap and must not block.
     */
    String whyNotReady();

    /** Ready when every part is; otherwise the first part's reason. */
    static Readiness allOf(List<Readiness> parts) {
        List<Readiness> copy = List.copyOf(parts);
        return () -> {
            for (Readiness r : copy) {
                String why = r.whyNotReady();
                if (why != null) {
                    return why;
                }
            }
            return READY;
        };
    }
}
