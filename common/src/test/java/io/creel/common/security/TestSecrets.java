package io.creel.common.security;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Cluster-secret files and security settings for tests, shared with other modules' tests through
 * common's test-jar.
 */
public final class TestSecrets {
    private TestSecrets() {
    }

    /**
     * Writes {@code text} as a cluster secret to {@code file}, readable by its owner only (a secret
     * other users could read is refused by every process); returns {@code file}.
     */
    public static Path write(Path file, String text) throws IOException {
        Files.writeString(file, text + "\n", StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    /** TLS on with {@code certs} (certificate, key, trusted authority), plus the secret in {@code secret} if not null. */
    public static Map<String, String> tlsAndSecret(TestCertificates certs, Path secret) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(SecurityKeys.TLS_ENABLED.name(), "true");
        m.put(SecurityKeys.TLS_CERT.name(), certs.cert.toString());
        m.put(SecurityKeys.TLS_KEY.name(), certs.key.toString());
        m.put(SecurityKeys.TLS_TRUST.name(), certs.ca.toString());
        if (secret != null) {
            m.put(SecurityKeys.SECRET_FILE.name(), secret.toString());
        }
        return m;
    }
}
