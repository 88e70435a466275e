package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.namespace.StableHash;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two namenodes on two hosts share two storage servers. All data under one top-level name (one
 * partition) may use far more than half the cluster, and once it is freed, the other partition can
 * use the same space: capacity is granted on demand, not split in advance.
 */
class SkewedPartitionsTest {
    @RegisterExtension
    final LabExtension lab = new LabExtension(5);

    private static String nameOn(int partition, String prefix) {
        for (int i = 0; ; i++) {
            if (StableHash.partition(prefix + i, 2) == partition) {
                return prefix + i;
            }
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void onePartitionUsesMostOfTheClusterThenTheOtherDoes(LabSecurity security) {
        NetworkLab net = lab.net();
        NetworkLab.Host nn1 = net.host(1);
        NetworkLab.Host nn2 = net.host(2);
        NetworkLab.Host client = net.host(5);
        CreelLab cluster = new CreelLab(net, List.of(nn1, nn2), Map.of(
                "creel.storage.region.size", "1m", "creel.namenode.region.idle", "1s",
                "creel.namenode.reuse.delay", "0ms"), security);
        cluster.startNamenode(nn1, "nn1");
        cluster.startNamenode(nn2, "nn2");
        cluster.startDatanode(net.host(3), "ds3", "8m");
        cluster.startDatanode(net.host(4), "ds4", "8m");
        Duration run = Duration.ofSeconds(90);
        long big = 13L << 20; // of 16 MiB in all: more than either server, far more than an even split

        String first = "/" + nameOn(0, "skew");
        cluster.runDriver(client, "write-first", run, "write", first, Long.toString(big), "21", "chunk=1048576");
        HostProcess report = cluster.startCli(client, "report-1", "report");
        assertEquals(0, report.waitForExit(Duration.ofSeconds(60)), report.tail(30));
        assertTrue(report.output().contains("live"), report.tail(30));

        HostProcess rm = cluster.startCli(client, "rm-first", "fs", "rm", first);
        assertEquals(0, rm.waitForExit(Duration.ofSeconds(60)), rm.tail(20));
        String second = "/" + nameOn(1, "skew");
        // The first namenode gives its regions back once they have been empty for the idle time.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        int attempt = 0;
        while (true) {
            HostProcess w = cluster.startDriver(client, "write-second-" + attempt, "write", second + "-" + attempt,
                    Long.toString(big), "22", "chunk=1048576");
            if (w.waitForExit(run) == 0) {
                cluster.runDriver(client, "read-second", run, "read", second + "-" + attempt, "22");
                return;
            }
            assertTrue(w.output().contains("OUT_OF_SPACE"), "only a lack of space may fail it:\n" + w.tail(20));
            assertTrue(System.nanoTime() < deadline, "the second partition never got the space back:\n" + w.tail(20));
            HostProcess clean = cluster.startCli(client, "rm-second-" + attempt, "fs", "rm", second + "-" + attempt);
            clean.waitForExit(Duration.ofSeconds(60));
            attempt++;
        }
    }
}
