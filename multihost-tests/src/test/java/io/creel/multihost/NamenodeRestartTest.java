package io.creel.multihost;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code kill -9} of a namenode that logs every change ({@code creel.namenode.log.sync = every}),
 * then a restart on the same log: every acknowledged change is there, the storage servers (still
 * running) register again, and the data reads back byte for byte.
 */
class NamenodeRestartTest {
    @RegisterExtension
    final LabExtension lab = new LabExtension(4);

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aKilledNamenodeRestartsFromItsLogAndEveryAcknowledgedFileReadsBack(LabSecurity security) {
        NetworkLab net = lab.net();
        NetworkLab.Host nnHost = net.host(1);
        NetworkLab.Host client = net.host(4);
        CreelLab cluster = new CreelLab(net, List.of(nnHost), Map.of(
                "creel.namenode.log.dir", net.scratchDir().resolve("namenode-log").toString(),
                "creel.namenode.log.sync", "every"), security);
        HostProcess nn = cluster.startNamenode(nnHost, "nn");
        List<HostProcess> servers = new ArrayList<>();
        for (int i = 2; i <= 3; i++) {
            servers.add(cluster.startDatanode(net.host(i), "ds" + i, "8m"));
        }
        Duration run = Duration.ofSeconds(60);
        cluster.runDriver(client, "write-a", run, "write", "/a", Integer.toString(3 << 20), "11");
        cluster.runDriver(client, "write-b", run, "write", "/b", "100000", "12", "chunk=7000", "sync=3");

        nn.kill9();
        HostProcess restarted = cluster.startNamenode(nnHost, "nn-restarted");
        org.junit.jupiter.api.Assertions.assertTrue(restarted.output().contains("log records replayed"),
                "the namenode restored its namespace from the log:\n" + restarted.tail(20));
        for (HostProcess s : servers) {
            // Their heartbeats are refused by the new instance until they register again.
            s.waitForLine("registered with namenode", CreelLab.START_TIMEOUT);
        }
        cluster.runDriver(client, "read-a", run, "read", "/a", "11")
                .waitForLine("OK read /a " + (3 << 20) + "$", Duration.ofSeconds(1));
        cluster.runDriver(client, "read-b", run, "read", "/b", "12")
                .waitForLine("OK read /b 100000$", Duration.ofSeconds(1));
        // The restarted namenode hands out blocks again, never over the restored ones.
        cluster.runDriver(client, "write-c", run, "write", "/c", Integer.toString(2 << 20), "13");
        cluster.runDriver(client, "read-c", run, "read", "/c", "13");
        cluster.runDriver(client, "read-a-again", run, "read", "/a", "11");
    }
}
