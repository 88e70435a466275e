package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The lab itself: a cluster across namespaces moves bytes over the bridge, and the lab leaves nothing behind. */
class LabSmokeTest {
    @RegisterExtension
    final LabExtension lab = new LabExtension(4);

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aFileWrittenFromOneHostReadsBackOnAnotherAndTheLabCleansUp() {
        NetworkLab net = lab.net();
        CreelLab cluster = new CreelLab(net, List.of(net.host(1)), Map.of());
        cluster.startNamenode(net.host(1), "nn");
        HostProcess ds = cluster.startDatanode(net.host(2), "ds2", "8m");

        cluster.runDriver(net.host(3), "writer", Duration.ofSeconds(60), "write", "/smoke", "300000", "7");
        HostProcess reader = cluster.runDriver(net.host(4), "reader", Duration.ofSeconds(60), "read", "/smoke", "7");
        reader.waitForLine("OK read /smoke 300000", Duration.ofSeconds(1));
        assertTrue(ds.isAlive());

        String id = net.id();
        net.close();
        assertFalse(ds.isAlive(), "the lab kills its processes on close");
        String left = Cmd.check("ip", "netns", "list");
        assertEquals(List.of(), left.lines().filter(l -> l.startsWith(id)).toList(), "namespaces left behind");
    }
}
