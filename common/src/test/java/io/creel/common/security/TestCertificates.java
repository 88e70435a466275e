package io.creel.common.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Makes a throw-away certificate authority and certificates it signs (for 127.0.0.1/localhost, or
 * for given addresses), with the openssl command, in a test's temporary directory: no key is ever
 * committed. Shared with other modules' tests through common's test-jar.
 */
public final class TestCertificates {
    public final Path ca;
    public final Path cert;
    public final Path key;

    private TestCertificates(Path ca, Path cert, Path key) {
        this.ca = ca;
        this.cert = cert;
        this.key = key;
    }

    /** An authority named {@code name} and a host certificate it signed, under {@code dir}. */
    public static TestCertificates make(Path dir, String name) throws IOException, InterruptedException {
        Path d = authority(dir, name);
        return issue(d, "host", "localhost", "IP:127.0.0.1,DNS:localhost");
    }

    /**
     * An authority named {@code name} and, for each address in {@code ips}, a certificate it signed
     * whose only name is that address (good for both ends of a connection), under {@code dir}: for
     * clusters whose processes run on several hosts. Keyed by address, in the order given.
     */
    public static Map<String, TestCertificates> forAddresses(Path dir, String name, List<String> ips)
            throws IOException, InterruptedException {
        Path d = authority(dir, name);
        Map<String, TestCertificates> byIp = new LinkedHashMap<>();
        for (String ip : ips) {
            byIp.put(ip, issue(d, "host-" + ip, ip, "IP:" + ip));
        }
        return byIp;
    }

    private static Path authority(Path dir, String name) throws IOException, InterruptedException {
        Path d = Files.createDirectories(dir.resolve(name));
        run(d, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=" + name + " test CA");
        return d;
    }

    /**
     * A client certificate of the same authority whose subject is {@code CN=commonName}: a TLS
     * identity for {@code creel.security.tls.identity}.
     */
    public TestCertificates client(String commonName) throws IOException, InterruptedException {
        return issue(ca.getParent(), "client-" + commonName, commonName, "DNS:" + commonName);
    }

    /** A certificate the authority in {@code d} signs: {@code stem.pem} and {@code stem.key}. */
    private static TestCertificates issue(Path d, String stem, String commonName, String subjectAltName)
            throws IOException, InterruptedException {
        Files.writeString(d.resolve(stem + ".ext"), "subjectAltName=" + subjectAltName + "\n"
                + "extendedKeyUsage=serverAuth,clientAuth\n", StandardCharsets.US_ASCII);
        run(d, "openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", stem + ".key", "-out", stem + ".csr", "-subj", "/CN=" + commonName);
        run(d, "openssl", "x509", "-req", "-in", stem + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", stem + ".pem", "-days", "2", "-extfile", stem + ".ext");
        return new TestCertificates(d.resolve("ca.pem"), d.resolve(stem + ".pem"), d.resolve(stem + ".key"));
    }

    private static void run(Path dir, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(command));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", cmd));
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", cmd) + " failed (" + p.exitValue() + "): "
                    + new String(out, StandardCharsets.UTF_8));
        }
    }
}
