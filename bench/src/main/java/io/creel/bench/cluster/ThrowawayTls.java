package io.creel.bench.cluster;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.security.SecurityKeys;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * TLS for a bench run ({@code bin/creel bench --tls}): a throw-away authority and a certificate for
 * 127.0.0.1/localhost made with the openssl command in a private temporary directory, and the
 * configuration that turns TLS on with them for the bench's cluster and its clients. Closing deletes
 * the files.
 */
public final class ThrowawayTls implements AutoCloseable {
    private final Path dir;
    private final CreelConf conf;

    private ThrowawayTls(Path dir, CreelConf conf) {
        this.dir = dir;
        this.conf = conf;
    }

    /** Makes the certificate and returns {@code base} with TLS on; fails UNAVAILABLE without openssl. */
    public static ThrowawayTls on(CreelConf base) {
        Path dir;
        try {
            dir = Files.createTempDirectory("creel-bench-tls");
        } catch (IOException e) {
            throw new CreelException(ErrorCode.INTERNAL, "--tls: cannot make a temporary directory: " + e, e);
        }
        try {
            Files.writeString(dir.resolve("host.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                    + "extendedKeyUsage=serverAuth,clientAuth\n", StandardCharsets.US_ASCII);
            run(dir, "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=creel bench CA");
            run(dir, "openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", "host.key", "-out", "host.csr", "-subj", "/CN=localhost");
            run(dir, "openssl", "x509", "-req", "-in", "host.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                    "-CAcreateserial", "-out", "host.pem", "-days", "2", "-extfile", "host.ext");
            CreelConf conf = base.with(Map.of(SecurityKeys.TLS_ENABLED.name(), "true",
                    SecurityKeys.TLS_CERT.name(), dir.resolve("host.pem").toString(),
                    SecurityKeys.TLS_KEY.name(), dir.resolve("host.key").toString(),
                    SecurityKeys.TLS_TRUST.name(), dir.resolve("ca.pem").toString()));
            return new ThrowawayTls(dir, conf);
        } catch (IOException | RuntimeException e) {
            delete(dir);
            throw e instanceof CreelException c ? c : new CreelException(ErrorCode.UNAVAILABLE,
                    "--tls: cannot make a test certificate with openssl: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            delete(dir);
            throw new CreelException(ErrorCode.INTERNAL, "--tls: interrupted while making a certificate");
        }
    }

    /** The bench's configuration with TLS on. */
    public CreelConf conf() {
        return conf;
    }

    @Override
    public void close() {
        delete(dir);
    }

    private static void run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(List.of(command)).directory(dir.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + String.join(" ", command));
        }
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited " + p.exitValue() + ": "
                    + new String(out, StandardCharsets.UTF_8).trim());
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("--tls: cannot delete " + dir + ": " + e);
        }
    }
}
