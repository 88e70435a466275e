package io.creel.minicluster.cluster.model;

import io.creel.minicluster.MiniCluster;
import java.util.SplittableRandom;

/**
 * The cluster a seed runs on: one or two namenodes, small blocks and tiny tiers (so that space
 * runs out and allocation spills), short reuse delays, same-host access on or off. Derived from
 * the seed alone, so a replay gets the same cluster.
 */
record ClusterShape(int namenodes, int blockSize, int dramBlocks, int diskBlocks, int dramServers,
                    int regionBlocks, int reuseDelayMillis, boolean localAccess) {

    static ClusterShape of(long seed) {
        SplittableRandom r = new SplittableRandom(seed); // well mixed even for neighbouring seeds
        int[] blockSizes = {4 << 10, 16 << 10, 64 << 10};
        int[] delays = {0, 20, 200};
        int namenodes = 1 + r.nextInt(2);
        int blockSize = blockSizes[r.nextInt(blockSizes.length)];
        int dramBlocks = 8 + r.nextInt(40);
        int diskBlocks = 16 + r.nextInt(80);
        int dramServers = 1 + r.nextInt(2);
        return new ClusterShape(namenodes, blockSize, dramBlocks, diskBlocks, dramServers, 4 + r.nextInt(13),
                delays[r.nextInt(delays.length)], r.nextBoolean());
    }

    /** Starts the cluster in temporary directories, with {@code extra} settings on top of the shape's. */
    MiniCluster start(java.util.Map<String, String> extra) {
        return start(extra, 1);
    }

    /**
     * Starts the cluster for blocks of {@code replication} copies: with more than one, the storage
     * servers are spread over one host more than the factor (loopback addresses), each storage class
     * with a server on every host, so a block that lost a copy with its server has a host to get it
     * back on.
     */
    MiniCluster start(java.util.Map<String, String> extra, int replication) {
        int hosts = replication > 1 ? replication + 1 : 1;
        MiniCluster.Builder b = MiniCluster.builder().namenodes(namenodes).hosts(hosts)
                .servers(Math.max(dramServers, hosts), hosts)
                .dram((long) dramBlocks * blockSize).disk((long) diskBlocks * blockSize)
                .temporaryDirectories()
                .set("creel.block.size", Integer.toString(blockSize))
                .set("creel.storage.region.size", Long.toString((long) regionBlocks * blockSize))
                .set("creel.namenode.reuse.delay", reuseDelayMillis + "ms")
                .set("creel.namenode.region.idle", "200ms")
                .set("creel.net.event.loops", "2")
                .set("creel.client.request.timeout", "20s")
                .set("creel.client.local.access", Boolean.toString(localAccess));
        extra.forEach(b::set);
        return b.start();
    }

    @Override
    public String toString() {
        return namenodes + " namenode(s), " + (blockSize >> 10) + " KiB blocks, " + dramServers + " x " + dramBlocks
                + " DRAM blocks, " + diskBlocks + " disk blocks, regions of " + regionBlocks + " blocks, reuse delay "
                + reuseDelayMillis + " ms, local access " + (localAccess ? "on" : "off");
    }
}
