package io.creel.common.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes a throw-away certificate authority and a certificate it signs for 127.0.0.1/localhost, with
 * the openssl command, in a test's temporary directory: no key is ever committed. Shared with other
 * modules' tests through common's test-jar.
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
        Path d = Files.createDirectories(dir.resolve(name));
        Path ext = d.resolve("host.ext");
        Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                + "extendedKeyUsage=serverAuth,clientAuth\n", StandardCharsets.US_ASCII);
        run(d, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=" + name + " test CA");
        run(d, "openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "host.key", "-out", "host.csr", "-subj", "/CN=localhost");
        run(d, "openssl", "x509", "-req", "-in", "host.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "host.pem", "-days", "2", "-extfile", "host.ext");
        return new TestCertificates(d.resolve("ca.pem"), d.resolve("host.pem"), d.resolve("host.key"));
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
