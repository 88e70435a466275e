package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 23 across hosts: with replication factor 2 over three storage-server hosts, {@code kill -9}
 * of one server in the middle of a large read and of a large write costs neither of them anything
 * (they complete with the right bytes and no error), and the namenode then gives every block its
 * second copy back on the live servers. A File with factor 1 on the killed server fails as it
 * always did: one clear error naming the server. One cluster start serves every step.
 */
class ReplicatedServerKillTest extends OneNamenodeThreeServers {
    private static final int BLOCK = 64 << 10;
    /**
     * 48 blocks: long enough that the kill falls in the middle of the read and of the write, and
     * small enough that both Files' two copies fit on the two servers left (8 MiB, 128 blocks each).
     */
    private static final long LARGE = 3L << 20;
    private static final Pattern BLOCK_LINE = Pattern.compile("^BLOCK (\\d+) (\\S+)$", Pattern.MULTILINE);

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aKilledCopyCostsReadersAndWritersNothingAndTheFactorIsRestored(LabSecurity security) {
        startCluster(security);
        String victim = cluster.storageAddress(server(3));
        writePinned("/one", 512 * 1024, 11, server(3)); // factor 1: every block only on the victim
        HostProcess put = cluster.runDriver(clientHost, "put-read2", CLIENT_RUN, "write", "/read2",
                Long.toString(LARGE), "21", "replication=2", "layout=true");
        List<List<String>> layout = layout(put);
        assertEquals(LARGE / BLOCK, layout.size(), put.tail(5));
        for (int i = 0; i < layout.size(); i++) {
            List<String> copies = layout.get(i);
            assertEquals(2, copies.size(), "block " + i + " has two copies: " + copies);
            assertNotEquals(host(copies.get(0)), host(copies.get(1)), "block " + i + "'s copies on two hosts");
        }

        // A reader over TCP, one block per step, and a writer, one block per step, synced every 4.
        HostProcess reader = cluster.startDriver(clientHost, "reader", "read", "/read2", "21", "pause=60");
        HostProcess writer = cluster.startDriver(clientHost, "writer", "write", "/write2", Long.toString(LARGE), "22",
                "replication=2", "pause=40", "sync=4", "layout=true");
        for (int i = 0; i < 8; i++) {
            reader.waitForLine("PROGRESS read", CLIENT_RUN);
            writer.waitForLine("PROGRESS write", CLIENT_RUN);
        }
        process("ds3").kill9();
        long readAtKill = lastProgress(reader.output(), "read");
        assertTrue(readAtKill < LARGE && lastProgress(writer.output(), "write") < LARGE,
                "the kill came after the read or the write ended:\n" + reader.tail(3) + writer.tail(3));
        // Failover was needed: blocks still to be read whose first copy (a TCP reader's first
        // choice, the copies being equally far) was on the killed server.
        long failovers = layout.subList((int) (readAtKill / BLOCK) + 1, layout.size()).stream()
                .filter(c -> c.get(0).equals(victim)).count();
        assertTrue(failovers > 0, "no block left to read had its first copy on " + victim);

        assertEquals(0, reader.waitForExit(CLIENT_RUN), "the read must complete:\n" + reader.tail(20));
        reader.waitForLine("OK read /read2 " + LARGE + "$", Duration.ofSeconds(1));
        assertEquals(0, writer.waitForExit(CLIENT_RUN), "the write must complete:\n" + writer.tail(20));
        writer.waitForLine("OK write /write2 " + LARGE + "$", Duration.ofSeconds(1));
        for (HostProcess p : List.of(reader, writer)) {
            assertFalse(p.output().contains("FAILED") || p.output().contains("CORRUPT"), p + ":\n" + p.tail(20));
        }
        // The namenode kept allocating on the victim until it declared it dead: the writer met it
        // and went on without that copy.
        namenode.waitForLine("/write2: block \\d+ left its copy on storage server " + Pattern.quote(victim),
                Duration.ofSeconds(1));

        // Factor 1 keeps the old behaviour: the victim's blocks are gone, and a read says so once,
        // clearly, naming the server.
        HostProcess one = cluster.startDriver(clientHost, "read-one", "read", "/one", "11");
        assertEquals(1, one.waitForExit(CLIENT_RUN), "the read of /one must fail:\n" + one.tail(20));
        Matcher failed = one.waitForLine("FAILED read (\\S+) (\\w+) after (\\d+) ms: (.*)$", Duration.ofSeconds(1));
        assertEquals("/one", failed.group(1), failed.group());
        assertTrue(failed.group(2).equals("UNAVAILABLE") || failed.group(2).equals("SERVER_UNKNOWN"), failed.group());
        assertTrue(failed.group(4).contains("/one") && failed.group(4).contains(victim), failed.group());
        assertEquals(1, one.output().lines().filter(l -> l.startsWith("FAILED")).count(), one.tail(10));
        assertFalse(one.output().contains("CORRUPT"), one.tail(10));
        assertTrue(Long.parseLong(failed.group(3)) < cluster.millis("creel.client.request.timeout") + SLACK_MS,
                "the error came too late: " + failed.group());

        // The repair: once the victim is declared dead, every block has two copies on live servers,
        // as a new client sees it (bounded by the server timeout, a repair walk and the copying).
        HostProcess copiesRead = cluster.startDriver(clientHost, "copies-read2", "copies", "/read2", "2", victim);
        HostProcess copiesWrite = cluster.startDriver(clientHost, "copies-write2", "copies", "/write2", "2", victim);
        for (HostProcess p : List.of(copiesRead, copiesWrite)) {
            assertEquals(0, p.waitForExit(CLIENT_RUN), "the factor is restored:\n" + p.tail(10));
        }

        // Two hosts are left, so each now holds a copy of every block: with ds2 killed too, ds4
        // alone serves both Files, the copies the repair made included — with the right bytes.
        process("ds2").kill9();
        assertReadsBack("/read2", LARGE, 21, "read2-from-ds4");
        assertReadsBack("/write2", LARGE, 22, "write2-from-ds4");
    }

    private HostProcess process(String name) {
        return net.processes().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    /** The copies (ip:port, first copy first) of each block, from a driver's {@code BLOCK} lines. */
    private static List<List<String>> layout(HostProcess driver) {
        List<List<String>> out = new ArrayList<>();
        Matcher m = BLOCK_LINE.matcher(driver.output());
        while (m.find()) {
            assertEquals(out.size(), Integer.parseInt(m.group(1)), "blocks in order");
            out.add(List.of(m.group(2).split(",")));
        }
        return out;
    }

    /** The bytes a driver had read or written by its last {@code PROGRESS} line (0 before the first). */
    private static long lastProgress(String output, String op) {
        return output.lines().filter(l -> l.startsWith("PROGRESS " + op + " "))
                .mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).max().orElse(0);
    }

    private static String host(String address) {
        return address.substring(0, address.lastIndexOf(':'));
    }
}
