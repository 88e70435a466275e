package io.creel.common.security;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The credential file reader given hostile bytes: it returns a credential with a valid name and a
 * whole id, or fails CONFIGURATION; anything else thrown is a finding.
 */
class CredentialFileFuzzTest {
    private static final Path FILE = file();

    private static Path file() {
        try {
            Path f = Files.createTempFile("creel-fuzz", ".credential",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            f.toFile().deleteOnExit();
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @FuzzTest(maxDuration = "15s")
    void aCredentialFileIsReadWholeOrRefusedAsConfiguration(FuzzedDataProvider data) throws IOException {
        Files.write(FILE, data.consumeRemainingAsBytes());
        Credential c;
        try {
            c = Credential.read(FILE);
        } catch (CreelException e) {
            if (e.code() != ErrorCode.CONFIGURATION) {
                throw new IllegalStateException("refused with " + e.code() + ", not CONFIGURATION: " + e.getMessage(), e);
            }
            return;
        }
        Identity.checkName(c.name());
        if (c.id().length != Credential.ID_BYTES || c.idText().length() != 2 * Credential.ID_BYTES) {
            throw new IllegalStateException("read a credential with a broken id: " + c);
        }
    }
}
