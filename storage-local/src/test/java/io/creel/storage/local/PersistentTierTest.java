package io.creel.storage.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.local.transport.SameHostFiles;
import io.creel.storage.spi.BlockTransport;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Both tiers with {@code creel.storage.persistent}: a restarted server in the same directory is the
 * same server (token, port), with the same bytes and tags; a second server on the directory and a
 * changed size are refused.
 */
class PersistentTierTest {
    private static final Map<String, String> PERSISTENT = Map.of("creel.storage.persistent", "true");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void aRestartedServerKeepsItsTokenPortBytesAndTags(String tier) {
        byte[] data = TestServer.pattern(100_000, 7);
        StorageServerInfo first;
        try (TestServer s = TestServer.start(tier, dir, PERSISTENT)) {
            first = s.info();
            BlockTransport tcp = s.transport("tcp");
            TestServer.write(tcp, s.at(3, 42), 1000, data);
            TestServer.write(tcp, s.at(15, 43), 0, new byte[] {9});
            tcp.close();
        }
        assertTrue(Files.exists(Path.of(SameHostFiles.of(first).dataPath())), "a persistent server keeps its data file");
        try (TestServer s = TestServer.start(tier, dir, PERSISTENT)) {
            StorageServerInfo again = s.info();
            assertEquals(first.localToken(), again.localToken(), "same token: the same server identity");
            assertEquals(first.port(), again.port(), "the port chosen in the first run is bound again");
            assertEquals(SameHostFiles.of(first).dataPath(), SameHostFiles.of(again).dataPath());
            BlockTransport tcp = s.transport("tcp");
            assertArrayEquals(data, TestServer.read(tcp, s.at(3, 42), 1000, data.length));
            assertArrayEquals(new byte[] {9}, TestServer.read(tcp, s.at(15, 43), 0, 1));
            assertEquals(ErrorCode.STALE_BLOCK, TestServer.failureCode(() -> TestServer.read(tcp, s.at(3, 41), 0, 1)),
                    "the tags survive too: an older tag is still stale");
            assertEquals(ErrorCode.STALE_BLOCK, TestServer.failureCode(() -> TestServer.write(tcp, s.at(3, 40), 0,
                    new byte[1])));
            tcp.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void aSecondServerOnTheSameDirectoryIsAConfigurationError(String tier) {
        try (TestServer s = TestServer.start(tier, dir, PERSISTENT)) {
            CreelException e = TestServer.startFailure(tier, dir, PERSISTENT);
            assertEquals(ErrorCode.CONFIGURATION, e.code());
            assertTrue(e.getMessage().contains("in use by another " + tier + " storage server"), e.getMessage());
            assertTrue(s.info().port() > 0);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void aChangedSizeIsAnErrorNotATruncation(String tier) throws IOException {
        Path file;
        long size;
        try (TestServer s = TestServer.start(tier, dir, PERSISTENT)) {
            file = Path.of(s.files().dataPath());
        }
        size = Files.size(file);
        CreelException e = TestServer.startFailure(tier, dir, Map.of("creel.storage.persistent", "true",
                "creel.storage." + tier + ".size", "8m"));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("holds 16 blocks") && e.getMessage().contains("creel.storage." + tier
                + ".size"), e.getMessage());
        assertEquals(size, Files.size(file), "the existing file is left as it was");
        try (TestServer s = TestServer.start(tier, dir, PERSISTENT)) {
            assertEquals(16, s.info().blockCount(), "the original size still starts");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void aRememberedPortThatIsTakenIsAClearError(String tier) throws IOException {
        int port;
        try (TestServer s = TestServer.start(tier, dir, PERSISTENT)) {
            port = s.info().port();
        }
        try (ServerSocket squatter = new ServerSocket(port, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            CreelException e = TestServer.startFailure(tier, dir, PERSISTENT);
            assertEquals(ErrorCode.CONFIGURATION, e.code());
            assertTrue(e.getMessage().contains("port " + port) && e.getMessage().contains(tier + ".lock"),
                    e.getMessage());
            assertTrue(squatter.isBound());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void withoutPersistenceTheFilesGoAndTheTokenIsNew(String tier) {
        StorageServerInfo first;
        try (TestServer s = TestServer.start(tier, dir)) {
            first = s.info();
        }
        assertTrue(!Files.exists(Path.of(SameHostFiles.of(first).dataPath())));
        try (TestServer s = TestServer.start(tier, dir)) {
            assertTrue(s.info().localToken() != first.localToken());
        }
    }
}
