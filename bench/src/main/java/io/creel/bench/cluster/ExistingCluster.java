package io.creel.bench.cluster;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import java.util.Optional;

/**
 * {@code --existing}: a cluster the bench did not start, at {@code creel.namenode.address}. The
 * bench removes its own nodes at the end but leaves the cluster running; the namenode's memory
 * is not measured (its process may be on another machine).
 */
public final class ExistingCluster implements BenchCluster {
    private final CreelConf conf;

    public ExistingCluster(CreelConf conf) {
        this.conf = conf;
    }

    @Override
    public CreelConf clientConf() {
        return conf;
    }

    @Override
    public String description() {
        return "an existing cluster at " + String.join(",",
                conf.get(ConfKeys.NAMENODE_ADDRESS).stream().map(h -> h.toUri()).toList());
    }

    @Override
    public Optional<MemoryUse> namenodeMemory() {
        return Optional.empty();
    }

    @Override
    public void close() {
        // Not ours to stop.
    }
}
