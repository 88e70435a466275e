package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A namenode that cannot be reached, either silently (its link cut) or refusing (its process
 * killed): client commands fail with a clear error naming the namenode within the connect timeout.
 */
class NamenodeUnreachableTest extends OneNamenodeThreeServers {

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aNamenodeBehindACutLinkFailsClientCommandsWithinTheConnectTimeout(LabSecurity security) {
        startCluster(security);
        writePinned("/data", 256 * 1024, 9, server(2));
        net.cutLink(nnHost);
        long connect = cluster.millis("creel.client.connect.timeout");

        // The Java API: the failing step (the lookup) ends within the connect timeout.
        HostProcess driver = cluster.startDriver(clientHost, "reader", "read", "/data", "9");
        Matcher m = driver.waitForLine("FAILED read /data (\\w+) after (\\d+) ms: (.*)$",
                Duration.ofMillis(connect + SLACK_MS + 15_000));
        assertTrue(m.group(1).equals("TIMEOUT") || m.group(1).equals("UNAVAILABLE"), m.group(0));
        assertTrue(Long.parseLong(m.group(2)) <= connect + 2000, "the lookup waited " + m.group(2) + " ms: " + m.group(0));
        assertTrue(m.group(3).contains(cluster.namenodeAddress(nnHost)), "the namenode is not named: " + m.group(0));
        assertTrue(m.group(3).startsWith("/data: "), "the node is not named: " + m.group(0));
        assertEquals(1, driver.waitForExit(Duration.ofSeconds(20)));

        // The command line: one clear line, exit code 1, no hang.
        assertCliFails("stat", connect, "/data", "fs", "stat", "/data");
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKilledNamenodeFailsClientCommandsAtOnce(LabSecurity security) {
        startCluster(security);
        namenode.kill9();
        long connect = cluster.millis("creel.client.connect.timeout");
        HostProcess driver = cluster.startDriver(clientHost, "reader", "read", "/data", "9");
        Matcher m = driver.waitForLine("FAILED read /data (\\w+) after (\\d+) ms: (.*)$",
                Duration.ofMillis(connect + SLACK_MS + 15_000));
        assertEquals("UNAVAILABLE", m.group(1), "a refused connection is UNAVAILABLE: " + m.group(0));
        assertTrue(Long.parseLong(m.group(2)) <= connect, "the lookup waited " + m.group(2) + " ms: " + m.group(0));
        assertTrue(m.group(3).contains(cluster.namenodeAddress(nnHost)), "the namenode is not named: " + m.group(0));
        assertTrue(m.group(3).startsWith("/data: "), "the node is not named: " + m.group(0));
        assertEquals(1, driver.waitForExit(Duration.ofSeconds(20)));

        assertCliFails("stat", connect, "/data", "fs", "stat", "/data");
        assertCliFails("ls", connect, "/", "fs", "ls", "/");
    }

    /**
     * Runs a CLI command on the client host and expects exit 1 with one {@code creel: ...} line
     * naming the node ({@code path}) and the namenode.
     */
    private void assertCliFails(String name, long connectMs, String path, String... args) {
        HostProcess cli = cluster.startCli(clientHost, "cli-" + name, args);
        // The process age includes JVM start-up, hence the slack.
        int code = cli.waitForExit(Duration.ofMillis(connectMs + SLACK_MS + 15_000));
        long ms = cli.age().toMillis();
        assertEquals(1, code, "exit code of creel " + String.join(" ", args) + ":\n" + cli.tail(20));
        Matcher line = cli.waitForLine("^creel: (.*)$", Duration.ofSeconds(1));
        assertTrue(line.group(1).contains(cluster.namenodeAddress(nnHost)), "the namenode is not named: "
                + line.group(0));
        assertTrue(line.group(1).startsWith(path + ": "), "the node is not named: " + line.group(0));
        assertTrue(ms < connectMs + SLACK_MS + 3000, "creel " + String.join(" ", args) + " took " + ms + " ms");
    }
}
