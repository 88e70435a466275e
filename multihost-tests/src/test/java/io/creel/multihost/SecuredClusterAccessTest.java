package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.security.SecurityKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A cluster with the cluster secret and TLS (client certificates required) across hosts: storage
 * servers on other hosts register and serve; the API and the CLI work from a client host; and from
 * that host, a client with no secret, with another cluster's secret, speaking plain TCP, or without
 * a client certificate is refused at the namenode's port and at each storage server's block port,
 * with one UNAUTHENTICATED error naming the server and saying what is missing, and the server logs
 * the refused peer's address.
 */
class SecuredClusterAccessTest {
    private static final Duration RUN = Duration.ofSeconds(60);

    @RegisterExtension
    final LabExtension lab = new LabExtension(4);

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void onlyClientsWithTheSecretAndTlsAreServedOnEveryPortAcrossHosts() {
        NetworkLab net = lab.net();
        NetworkLab.Host nnHost = net.host(1);
        NetworkLab.Host client = net.host(4);
        CreelLab cluster = new CreelLab(net, List.of(nnHost), Map.of(), LabSecurity.AUTH_TLS);
        HostProcess nn = cluster.startNamenode(nnHost, "nn");
        // Each waits until the namenode (another host, over TLS, after the mutual handshake) registered it.
        HostProcess ds2 = cluster.startDatanode(net.host(2), "ds2", "8m");
        HostProcess ds3 = cluster.startDatanode(net.host(3), "ds3", "8m");

        // The API: writes pinned to each server, read back by another client process.
        for (int i = 2; i <= 3; i++) {
            cluster.runDriver(client, "write-" + i, RUN, "write", "/on-ds" + i, "300000", Integer.toString(40 + i),
                    "location=" + net.host(i).ip());
            cluster.runDriver(client, "read-" + i, RUN, "read", "/on-ds" + i, Integer.toString(40 + i))
                    .waitForLine("OK read /on-ds" + i + " 300000$", Duration.ofSeconds(1));
        }
        // The CLI.
        HostProcess ls = cluster.startCli(client, "cli-ls", "fs", "ls", "/");
        assertEquals(0, ls.waitForExit(RUN), ls.tail(20));
        assertTrue(ls.output().contains("on-ds2\n") && ls.output().contains("on-ds3\n"), ls.tail(20));

        List<String> ports = List.of(cluster.namenodeAddress(nnHost), cluster.storageAddress(net.host(2)),
                cluster.storageAddress(net.host(3)));
        String[] probe = {"probe", "namenode", ports.get(0), "storage", ports.get(1), "storage", ports.get(2)};

        // The probe itself, configured as the cluster, is served on every port: the refusals below
        // are the server's answer to what the clients lack, nothing else.
        HostProcess member = cluster.startDriver(client, "probe-member", probe);
        assertEquals(0, member.waitForExit(RUN), member.tail(20));
        for (String port : ports) {
            member.waitForLine("OK probe " + Pattern.quote(port) + " answered", Duration.ofSeconds(1));
        }

        assertRefusedEverywhere(cluster, client, "probe-no-secret", Map.of(SecurityKeys.SECRET_FILE.name(), ""),
                probe, ports, "requires authentication: set " + SecurityKeys.SECRET_FILE.name());
        assertRefusedEverywhere(cluster, client, "probe-wrong-secret",
                Map.of(SecurityKeys.SECRET_FILE.name(), cluster.credentials().otherSecret().toString()),
                probe, ports, "proof of the cluster secret is wrong");
        assertRefusedEverywhere(cluster, client, "probe-plain", Map.of(SecurityKeys.SECRET_FILE.name(), "",
                        SecurityKeys.TLS_ENABLED.name(), "false"),
                probe, ports, "requires TLS (set " + SecurityKeys.TLS_ENABLED.name() + "=true");
        // TLS and the secret, but no client certificate: the servers require one. Under TLS 1.3 the
        // client learns it from the server's alert ("certificate required"), after its own handshake.
        assertRefusedEverywhere(cluster, client, "probe-no-client-cert", Map.of(SecurityKeys.TLS_CLIENT_AUTH.name(),
                "false", SecurityKeys.TLS_CERT.name(), "", SecurityKeys.TLS_KEY.name(), ""), probe, ports,
                "certificate");

        // The API with another cluster's secret: one clear error naming the namenode, no hang.
        HostProcess intruder = cluster.startDriver(client, "read-wrong-secret",
                Map.of(SecurityKeys.SECRET_FILE.name(), cluster.credentials().otherSecret().toString()),
                "read", "/on-ds2", "42");
        assertEquals(1, intruder.waitForExit(RUN), intruder.tail(20));
        Matcher m = intruder.waitForLine("FAILED read /on-ds2 (\\w+) after \\d+ ms: (.*)$", Duration.ofSeconds(1));
        assertEquals("UNAUTHENTICATED", m.group(1), m.group(0));
        assertTrue(m.group(2).contains(cluster.namenodeAddress(nnHost)), "the namenode is not named: " + m.group(0));

        // Each server logs whom it refused and why: the client host's address, once per refusal.
        for (HostProcess server : List.of(nn, ds2, ds3)) {
            for (String why : List.of("it sent a request without authenticating", "proof of the cluster secret is wrong",
                    "it does not speak TLS")) {
                assertTrue(server.output().lines().anyMatch(l -> l.contains("refused connection from /" + client.ip()
                        + ":") && l.contains(why)), server.name() + " did not log the refusal \"" + why + "\" of "
                        + client.ip() + ":\n" + server.tail(30));
            }
            // A TLS handshake the server's engine ends (no client certificate) is logged as it closes.
            assertTrue(server.output().lines().anyMatch(l -> l.contains("closing connection from /" + client.ip() + ":")
                    && l.toLowerCase(Locale.ROOT).contains("certificate")), server.name()
                    + " did not log the client without a certificate:\n" + server.tail(30));
        }
        // The cluster still serves its own clients after all that.
        cluster.runDriver(client, "read-again", RUN, "read", "/on-ds3", "43");
    }

    /**
     * Runs the probe configured as the host's processes plus {@code overrides} and expects, for
     * every port, exactly one failure: UNAUTHENTICATED, naming that port's address, containing
     * {@code why} (ignoring case: TLS engines spell alerts differently).
     */
    private static void assertRefusedEverywhere(CreelLab cluster, NetworkLab.Host host, String name,
                                                Map<String, String> overrides, String[] probe, List<String> ports,
                                                String why) {
        HostProcess p = cluster.startDriver(host, name, overrides, probe);
        assertEquals(1, p.waitForExit(RUN), name + " must be refused:\n" + p.tail(20));
        List<String> failures = new ArrayList<>(p.output().lines().filter(l -> l.startsWith("FAILED")).toList());
        assertEquals(ports.size(), failures.size(), name + ": one failure per port:\n" + p.tail(20));
        assertTrue(p.output().lines().noneMatch(l -> l.startsWith("OK")), name + " was served:\n" + p.tail(20));
        for (int i = 0; i < ports.size(); i++) {
            String port = ports.get(i);
            String line = failures.get(i);
            assertTrue(line.startsWith("FAILED probe " + port + " UNAUTHENTICATED after "), name + ": " + line);
            String message = line.substring(line.indexOf(" ms: ") + 5);
            assertTrue(message.contains(port), name + ": the server " + port + " is not named: " + line);
            assertTrue(message.toLowerCase(Locale.ROOT).contains(why.toLowerCase(Locale.ROOT)), name + ": expected \"" + why + "\": " + line);
        }
    }
}
