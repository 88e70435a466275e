package io.creel.ops.metrics;

import io.creel.common.BuildInfo;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * {@code creel_build_info{version, commit} 1}: which build a daemon runs, so a dashboard can show a
 * cluster in the middle of an upgrade (two versions at once) and join any other series on it.
 */
public final class BuildMetrics {
    private BuildMetrics() {
    }

    /** Registers the build's info metric (once per registry). */
    public static void register(PrometheusRegistry registry) {
        BuildInfo build = BuildInfo.current();
        // The client library adds the "_info" suffix of an info metric itself.
        Info info = Info.builder().name("creel_build")
                .help("The Creel release and commit this process runs").labelNames("version", "commit")
                .register(registry);
        info.addLabelValues(build.version(), build.commit());
    }
}
