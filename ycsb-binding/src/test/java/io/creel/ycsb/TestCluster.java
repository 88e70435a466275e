package io.creel.ycsb;

import io.creel.common.conf.ConfKeys;
import io.creel.minicluster.MiniCluster;
import io.creel.namenode.NamenodeKeys;
import java.util.Properties;

/**
 * The in-JVM cluster of these tests: a namenode, a DRAM and a disk server, 64 KiB blocks (so a
 * 1 MiB record spans sixteen blocks and small records do not each take a megabyte), short reuse
 * delay and timeouts so failures show within seconds.
 */
final class TestCluster {
    private TestCluster() {
    }

    static MiniCluster start() {
        return MiniCluster.builder().dram(256L << 20).disk(256L << 20).temporaryDirectories()
                .set(ConfKeys.BLOCK_SIZE, "64k")
                .set(NamenodeKeys.REUSE_DELAY, "500ms")
                .set(ConfKeys.CLIENT_REQUEST_TIMEOUT, "5s")
                .set(ConfKeys.CLIENT_CONNECT_TIMEOUT, "2s")
                .set("creel.net.event.loops", "2")
                .start();
    }

    /** YCSB properties that point the binding at {@code cluster}. */
    static Properties properties(MiniCluster cluster) {
        Properties p = new Properties();
        p.setProperty(ConfKeys.NAMENODE_ADDRESS.name(), cluster.address().toUri());
        p.setProperty(ConfKeys.BLOCK_SIZE.name(), "64k");
        p.setProperty(ConfKeys.CLIENT_REQUEST_TIMEOUT.name(), "5s");
        p.setProperty(ConfKeys.CLIENT_CONNECT_TIMEOUT.name(), "2s");
        return p;
    }
}
