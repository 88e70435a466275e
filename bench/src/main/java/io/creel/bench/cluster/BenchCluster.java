package io.creel.bench.cluster;

import io.creel.common.conf.CreelConf;
import java.util.Optional;

/**
 * The cluster a bench run measures: one it started as its own process (the default, so the
 * bench's clients and the servers are separate processes, as Redis's are), one in the bench's own
 * JVM ({@code --local}), or one already running ({@code --existing}).
 */
public interface BenchCluster extends AutoCloseable {
    /** Configuration for clients of this cluster. */
    CreelConf clientConf();

    /** One line saying what the cluster is and where it runs, for the report. */
    String description();

    /**
     * Memory of the process holding the namenode after full collections, measured in that
     * process; empty when it cannot be measured from the bench.
     */
    Optional<MemoryUse> namenodeMemory();

    /** Stops what the bench started (nothing for an existing cluster) and removes its files. */
    @Override
    void close();
}
