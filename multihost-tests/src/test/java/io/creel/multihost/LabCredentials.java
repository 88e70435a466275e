package io.creel.multihost;

import io.creel.common.security.SecurityKeys;
import io.creel.common.security.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The files a {@link LabSecurity#AUTH_TLS} cluster runs with, made at test time under a lab's
 * scratch directory (deleted with the lab): the cluster secret, another secret no process of the
 * cluster holds (for clients that must be refused), a throw-away authority and, per host, a
 * certificate naming that host's address, so a client that dials a host checks it is talking to
 * that host.
 */
final class LabCredentials {
    private final Path secret;
    private final Path otherSecret;
    private final Map<String, TestCertificates> byIp;

    private LabCredentials(Path secret, Path otherSecret, Map<String, TestCertificates> byIp) {
        this.secret = secret;
        this.otherSecret = otherSecret;
        this.byIp = byIp;
    }

    static LabCredentials create(Path dir, List<NetworkLab.Host> hosts) {
        try {
            Files.createDirectories(dir);
            Path secret = secretFile(dir.resolve("cluster.secret"), "the lab cluster's secret, more than 16 bytes");
            Path other = secretFile(dir.resolve("other.secret"), "a secret of some other cluster entirely");
            Map<String, TestCertificates> certs = TestCertificates.forAddresses(dir, "lab-ca",
                    hosts.stream().map(NetworkLab.Host::ip).toList());
            return new LabCredentials(secret, other, certs);
        } catch (IOException e) {
            throw new IllegalStateException("cannot make the lab's secret and certificates under " + dir + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted making the lab's certificates", e);
        }
    }

    private static Path secretFile(Path f, String text) throws IOException {
        return io.creel.common.security.TestSecrets.write(f, text);
    }

    /** A secret file that is not the cluster's (same form, other bytes). */
    Path otherSecret() {
        return otherSecret;
    }

    /** Keys every process of the cluster shares: secret, TLS, the authority, client certificates on. */
    Map<String, String> clusterSettings() {
        Map<String, String> s = new LinkedHashMap<>();
        s.put(SecurityKeys.SECRET_FILE.name(), secret.toString());
        s.put(SecurityKeys.TLS_ENABLED.name(), "true");
        s.put(SecurityKeys.TLS_TRUST.name(), byIp.values().iterator().next().ca.toString());
        s.put(SecurityKeys.TLS_CLIENT_AUTH.name(), "true");
        return s;
    }

    /** The certificate and key of the processes on {@code host} (servers and clients alike). */
    Map<String, String> hostSettings(NetworkLab.Host host) {
        TestCertificates c = byIp.get(host.ip());
        if (c == null) {
            throw new IllegalArgumentException("no certificate for " + host + "; the lab has " + byIp.keySet());
        }
        return Map.of(SecurityKeys.TLS_CERT.name(), c.cert.toString(), SecurityKeys.TLS_KEY.name(), c.key.toString());
    }
}
