package io.creel.bench.cluster;

import io.creel.common.conf.CreelConf;
import io.creel.minicluster.MiniCluster;
import java.util.Optional;

/**
 * {@code --local}: the cluster in the bench's own JVM, for convenience. Clients and servers then
 * share one process (its heap, its garbage collections, its threads on the same cores), which a
 * user's setup never does, so the report says so.
 */
public final class InProcessCluster implements BenchCluster {
    private final MiniCluster cluster;

    public InProcessCluster(MiniCluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public CreelConf clientConf() {
        return cluster.clientConf();
    }

    @Override
    public String description() {
        return "in the bench's own JVM (--local, for convenience: clients and servers share one process, "
                + "unlike Redis and its clients) at " + cluster.address().toUri();
    }

    @Override
    public Optional<MemoryUse> namenodeMemory() {
        return Optional.of(MemoryUse.measureAfterGc());
    }

    @Override
    public void close() {
        cluster.close();
    }
}
