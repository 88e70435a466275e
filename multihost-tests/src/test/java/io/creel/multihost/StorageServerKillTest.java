package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code kill -9} of a storage server while a client on another host writes or reads through it:
 * the client gets a clear error naming the node and the server within the configured timeouts
 * (never a hang, never wrong bytes) — or, a writer whose blocks still to come can go to the other
 * servers, carries on — and data on the other servers still reads back.
 */
class StorageServerKillTest extends OneNamenodeThreeServers {

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void killDuringWriteFailsTheWriterClearlyOrItCarriesOnAndOtherServersKeepTheirData(LabSecurity security) {
        startCluster(security);
        NetworkLab.Host victim = server(3);
        writePinned("/keep", 512 * 1024, 1, server(2));

        // 8 MiB in 64 KiB chunks, round-robin over the three servers, published every 4 chunks.
        HostProcess writer = cluster.startDriver(clientHost, "writer", "write", "/big", Long.toString(8 << 20), "2",
                "pause=40", "sync=4");
        for (int i = 0; i < 8; i++) {
            writer.waitForLine("PROGRESS write", CLIENT_RUN);
        }
        long killed = System.nanoTime();
        net.processes().stream().filter(p -> p.name().equals("ds3")).findFirst().orElseThrow().kill9();

        // The block being written on the dead server holds bytes only it had: the writer fails.
        // If the kill fell between that server's blocks, the blocks still to come go elsewhere.
        long bound = cluster.millis("creel.client.request.timeout") + SLACK_MS;
        writer.waitForLine("(FAILED|OK) write", Duration.ofMillis(bound + 10_000));
        if (writer.output().contains("FAILED write")) {
            assertClearFailure(writer, "write", "/big", cluster.storageAddress(victim), killed, bound);
            assertEquals(1, writer.waitForExit(Duration.ofSeconds(30)), "the writer must fail:\n" + writer.tail(20));
        } else {
            assertEquals(0, writer.waitForExit(Duration.ofSeconds(30)), writer.tail(20));
        }

        assertReadsBack("/keep", 512 * 1024, 1, "read-keep");
        // What /big published before the failure reads back intact or fails naming the dead server.
        HostProcess r = cluster.startDriver(clientHost, "read-big", "read", "/big", "2");
        int code = r.waitForExit(CLIENT_RUN);
        assertTrue(code == 0 || r.output().contains(cluster.storageAddress(victim)),
                "reading /big neither succeeded nor named the dead server:\n" + r.tail(20));
        assertFalse(r.output().contains("CORRUPT"), "wrong bytes:\n" + r.tail(20));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void killDuringReadFailsTheReaderClearlyAndOtherServersKeepTheirData(LabSecurity security) {
        startCluster(security);
        NetworkLab.Host victim = server(3);
        writePinned("/keep", 512 * 1024, 1, server(2));
        writePinned("/victim", 4 << 20, 3, victim);

        HostProcess reader = cluster.startDriver(clientHost, "reader", "read", "/victim", "3", "pause=100");
        for (int i = 0; i < 5; i++) {
            reader.waitForLine("PROGRESS read", CLIENT_RUN);
        }
        long killed = System.nanoTime();
        net.processes().stream().filter(p -> p.name().equals("ds3")).findFirst().orElseThrow().kill9();

        assertClearFailure(reader, "read", "/victim", cluster.storageAddress(victim), killed,
                cluster.millis("creel.client.request.timeout") + SLACK_MS);
        assertEquals(1, reader.waitForExit(Duration.ofSeconds(30)), "the reader must fail:\n" + reader.tail(20));

        assertReadsBack("/keep", 512 * 1024, 1, "read-keep");
    }
}
