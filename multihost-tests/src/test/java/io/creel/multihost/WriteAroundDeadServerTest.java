package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 9, fault 4, across hosts: {@code kill -9} of one of three storage servers, then a client on
 * another host writes while the namenode still counts that server live (its server timeout is long
 * here) and so still allocates blocks there. The writer has each such block allocated again on a
 * live server and carries on: the write succeeds and every byte reads back from the live servers.
 */
class WriteAroundDeadServerTest extends OneNamenodeThreeServers {

    @Override
    Map<String, String> settings() {
        return Map.of("creel.namenode.server.timeout", "120s");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aWriterCarriesOnPastAServerTheNamenodeStillBelievesLive(LabSecurity security) {
        startCluster(security);
        NetworkLab.Host victim = server(3);
        // Blocks round-robin over all three servers, so the namenode holds a region of each.
        cluster.runDriver(clientHost, "warm-up", CLIENT_RUN, "write", "/warm", Long.toString(1 << 20), "4");
        // The directory's records live on a server that stays: a container whose record block is on
        // a dead server cannot take new children (a known limit, see namenode/README.md).
        cluster.runDriver(clientHost, "mkdir", CLIENT_RUN, "mkdir", "/d", "location=" + server(2).ip());
        net.processes().stream().filter(p -> p.name().equals("ds3")).findFirst().orElseThrow().kill9();

        // 4 MiB in 64 KiB blocks, no location preference: round-robin names the dead server for
        // every third block.
        HostProcess writer = cluster.startDriver(clientHost, "writer", "write", "/d/around", Long.toString(4 << 20),
                "5", "sync=8", "location=nowhere");
        assertEquals(0, writer.waitForExit(CLIENT_RUN), "the write must succeed around the dead server:\n"
                + writer.tail(20));
        assertTrue(writer.output().contains("OK write /d/around " + (4 << 20)), writer.tail(5));

        HostProcess reader = cluster.runDriver(clientHost, "read-around", CLIENT_RUN, "read", "/d/around", "5");
        reader.waitForLine("OK read /d/around " + (4 << 20) + "$", Duration.ofSeconds(1));
        assertTrue(namenode.output().contains("moved from storage server " + cluster.storageAddress(victim)),
                "the namenode moved a block off the dead server:\n" + namenode.tail(20));
    }
}
