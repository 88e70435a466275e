package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code creel admin decommission}: the server is drained (no new blocks, its data still readable)
 * while the namenode moves its blocks to the other servers, then it leaves and its daemon exits on
 * its own; the moved data reads back from where it went; report shows each state.
 */
class DecommissionTest {
    /** 23 blocks of 64 KiB on the leaving server. */
    private static final long PINNED = 1_500_000;

    @RegisterExtension
    final LabExtension lab = new LabExtension(4);

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aDrainedServerLeavesOnceItsBlocksHaveMovedToTheOthers(LabSecurity security) {
        NetworkLab net = lab.net();
        NetworkLab.Host nnHost = net.host(1);
        NetworkLab.Host client = net.host(4);
        // The namenode copies at its slowest allowed rate, 64 KiB/s (a block a second): the drain then
        // lasts some 20 s, long enough to watch the draining state from other processes.
        CreelLab cluster = new CreelLab(net, List.of(nnHost), Map.of("creel.namenode.reuse.delay", "0ms",
                "creel.namenode.replication.bandwidth", "64k"), security);
        cluster.startNamenode(nnHost, "nn");
        HostProcess leaving = cluster.startDatanode(net.host(2), "ds2", "8m");
        cluster.startDatanode(net.host(3), "ds3", "8m");
        Duration run = Duration.ofSeconds(60);
        String address = cluster.storageAddress(net.host(2));
        cluster.runDriver(client, "write-pinned", run, "write", "/on-ds2", Long.toString(PINNED), "31",
                "location=" + net.host(2).ip());

        HostProcess drain = cluster.startCli(client, "decommission", "admin", "decommission", address);
        assertEquals(0, drain.waitForExit(run), drain.tail(20));
        assertTrue(drain.output().contains("draining"), drain.output());
        assertTrue(report(cluster, client, "report-draining").contains("draining"));

        // New data avoids the draining server even when asked for it; old data still reads.
        cluster.runDriver(client, "write-after", run, "write", "/after", "500000", "32",
                "location=" + net.host(2).ip());
        cluster.runDriver(client, "read-old", run, "read", "/on-ds2", "31");
        assertTrue(leaving.isAlive(), "the drain was over before the checks of the draining state:\n"
                + leaving.tail(20));

        // Its blocks move to ds3; then it is decommissioned and its daemon exits by itself.
        assertEquals(0, leaving.waitForExit(Duration.ofSeconds(90)), "the drained daemon exits by itself:\n"
                + leaving.tail(20));
        leaving.waitForLine("was decommissioned; exiting", Duration.ofSeconds(1));
        assertTrue(report(cluster, client, "report-gone").contains("decommissioned"));
        cluster.runDriver(client, "read-moved", run, "read", "/on-ds2", "31")
                .waitForLine("OK read /on-ds2 " + PINNED + "$", Duration.ofSeconds(1));
        cluster.runDriver(client, "read-after", run, "read", "/after", "32");
    }

    private static String report(CreelLab cluster, NetworkLab.Host client, String name) {
        HostProcess r = cluster.startCli(client, name, "report");
        assertEquals(0, r.waitForExit(Duration.ofSeconds(60)), r.tail(30));
        return r.output();
    }
}
