package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Base of scenarios on five hosts: host1 runs the namenode, host2..host4 a DRAM storage server each
 * (8 MiB, 64 KiB blocks), host5 the clients. {@link #startCluster} starts the daemons. Scenarios
 * are {@code @ParameterizedTest @EnumSource(LabSecurity.class)} methods and so run on a plain cluster
 * and on one with authentication and TLS.
 */
abstract class OneNamenodeThreeServers {
    /** Slack on top of a configured timeout for JVM pauses and log polling on a busy machine. */
    static final long SLACK_MS = 5000;
    static final Duration CLIENT_RUN = Duration.ofSeconds(60);

    @RegisterExtension
    final LabExtension lab = new LabExtension(5);

    NetworkLab net;
    CreelLab cluster;
    NetworkLab.Host nnHost;
    NetworkLab.Host clientHost;
    HostProcess namenode;

    /** Settings on top of {@link CreelLab#defaultSettings()} for this scenario. */
    Map<String, String> settings() {
        return Map.of();
    }

    void startCluster(LabSecurity security) {
        net = lab.net();
        nnHost = net.host(1);
        clientHost = net.host(5);
        cluster = new CreelLab(net, List.of(nnHost), settings(), security);
        namenode = cluster.startNamenode(nnHost, "nn");
        for (int i = 2; i <= 4; i++) {
            cluster.startDatanode(net.host(i), "ds" + i, "8m");
        }
    }

    /** Storage server host {@code i} (2..4). */
    NetworkLab.Host server(int i) {
        return net.host(i);
    }

    /** Writes {@code bytes} of pattern {@code seed} to {@code path}, its blocks on {@code server}'s storage server. */
    void writePinned(String path, long bytes, long seed, NetworkLab.Host server) {
        cluster.runDriver(clientHost, "put" + path.replace('/', '-'), CLIENT_RUN, "write", path, Long.toString(bytes),
                Long.toString(seed), "location=" + server.ip());
    }

    /** A fresh client process reads {@code path} back and finds every byte of pattern {@code seed}. */
    void assertReadsBack(String path, long bytes, long seed, String name) {
        HostProcess r = cluster.runDriver(clientHost, name, CLIENT_RUN, "read", path, Long.toString(seed));
        r.waitForLine("OK read " + java.util.regex.Pattern.quote(path) + " " + bytes + "$", Duration.ofSeconds(1));
    }

    /**
     * Waits for a driver's FAILED line and checks it is the clear error the failure model promises:
     * within {@code boundMs} of {@code sinceNanos}, code TIMEOUT or UNAVAILABLE, naming the node's path
     * and the server's address. Returns the line's match (groups: op, path, code, ms, message).
     */
    static Matcher assertClearFailure(HostProcess client, String op, String path, String server, long sinceNanos,
                                      long boundMs) {
        Matcher m = client.waitForLine("FAILED (" + op + ") (\\S+) (\\w+) after (\\d+) ms: (.*)$",
                Duration.ofMillis(boundMs + 10_000));
        long seen = (System.nanoTime() - sinceNanos) / 1_000_000;
        String line = m.group(0);
        assertTrue(seen < boundMs, "the error took " + seen + " ms, more than " + boundMs + " ms: " + line);
        assertTrue(m.group(2).equals(path), "failed on another node: " + line);
        assertTrue(m.group(3).equals("TIMEOUT") || m.group(3).equals("UNAVAILABLE"),
                "expected TIMEOUT or UNAVAILABLE: " + line);
        assertTrue(m.group(5).contains(path), "the message does not name the node " + path + ": " + line);
        assertTrue(m.group(5).contains(server), "the message does not name the server " + server + ": " + line);
        assertFalse(client.output().contains("CORRUPT"), "wrong bytes were read:\n" + client.tail(20));
        return m;
    }
}
