package io.creel.common.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CreelConfTest {
    @Test
    void defaultsParse() {
        CreelConf c = CreelConf.defaults();
        assertEquals(1L << 20, c.get(ConfKeys.BLOCK_SIZE));
        assertEquals(List.of("dram", "disk"), c.get(ConfKeys.STORAGE_CLASSES));
        assertEquals(List.of(new HostPort("localhost", 9060)), c.get(ConfKeys.NAMENODE_ADDRESS));
        assertEquals(Duration.ofSeconds(30), c.get(ConfKeys.CLIENT_REQUEST_TIMEOUT));
    }

    @Test
    void unknownKeyIsReportedWithASuggestion() {
        CreelException e = assertThrows(CreelException.class,
                () -> CreelConf.of(Map.of("creel.block.sise", "1m")));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("unknown key 'creel.block.sise'"), e.getMessage());
        assertTrue(e.getMessage().contains("did you mean 'creel.block.size'"), e.getMessage());
    }

    @Test
    void everyBadValueIsReportedAtOnce() {
        CreelException e = assertThrows(CreelException.class, () -> CreelConf.of(Map.of(
                "creel.block.size", "3m", "creel.client.request.timeout", "soon", "creel.namenode.address", "http://x:1")));
        assertTrue(e.getMessage().contains("creel.block.size: block size must be a power of two"), e.getMessage());
        assertTrue(e.getMessage().contains("creel.client.request.timeout: not a duration"), e.getMessage());
        assertTrue(e.getMessage().contains("creel:// scheme"), e.getMessage());
    }

    @Test
    void loadsAFileAndAppliesOverridesOnTop(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("creel-site.conf");
        Files.writeString(f, "# comment\ncreel.block.size = 4m\ncreel.client.request.timeout=64s\n");
        CreelConf c = CreelConf.load(f, Map.of("creel.client.request.timeout", "32s"));
        assertEquals(4L << 20, c.get(ConfKeys.BLOCK_SIZE));
        assertEquals(Duration.ofSeconds(32), c.get(ConfKeys.CLIENT_REQUEST_TIMEOUT));
    }

    @Test
    void sizesAndDurationsHaveOneSyntax() {
        assertEquals(4096, ConfValues.parseSize("4k"));
        assertEquals(128L << 20, ConfValues.parseSize("128MiB"));
        assertEquals(2L << 30, ConfValues.parseSize("2g"));
        assertThrows(IllegalArgumentException.class, () -> ConfValues.parseSize("-1"));
        assertThrows(IllegalArgumentException.class, () -> ConfValues.parseSize("lots"));
        assertEquals(Duration.ofMillis(250), ConfValues.parseDuration("250ms"));
        assertEquals(Duration.ofMinutes(2), ConfValues.parseDuration("2m"));
        assertThrows(IllegalArgumentException.class, () -> ConfValues.parseBoolean("maybe"));
    }

    @Test
    void addressesAcceptSchemeOrBareHostPort() {
        assertEquals(new HostPort("10.0.0.1", 9060), HostPort.parse("creel://10.0.0.1:9060"));
        assertEquals(new HostPort("::1", 9060), HostPort.parse("[::1]:9060"));
        assertThrows(IllegalArgumentException.class, () -> HostPort.parse("creel://nohost"));
    }

    @Test
    void aModulesKeysAreKnownWhereItsKeySourceIsOnTheClassPath() {
        // TestKeys is registered in this module's test resources, as a tier registers its keys.
        assertTrue(ConfKeys.all().containsKey(TestKeys.WIDGETS.name()));
        CreelConf c = CreelConf.of(Map.of("creel.test.widgets", "7"));
        assertEquals(7, c.get(TestKeys.WIDGETS));
        assertEquals(3, CreelConf.defaults().get(TestKeys.WIDGETS), "its default applies when unset");
        CreelException e = assertThrows(CreelException.class, () -> CreelConf.of(Map.of("creel.test.widgets", "-1")));
        assertTrue(e.getMessage().contains("creel.test.widgets"), e.getMessage());
    }

    @Test
    void aKeyWhoseDefaultDoesNotParseIsRejectedWhereItIsDeclared() {
        assertThrows(IllegalArgumentException.class,
                () -> ConfKey.of("creel.test.broken", "many", v -> ConfValues.parseInt(v, 0, 9), "broken"));
    }

    @Test
    void aRenamedKeysOldNameStillWorksUnderItsNewName() {
        CreelConf old = CreelConf.of(Map.of("creel.net.transport", "nio"));
        assertEquals("nio", old.get(ConfKeys.NET_IO));
        assertEquals(Map.of("creel.net.io", "nio"), old.explicitSettings(), "known by its new name only");
        CreelConf both = CreelConf.of(Map.of("creel.net.transport", "nio", "creel.net.io", "epoll"));
        assertEquals("epoll", both.get(ConfKeys.NET_IO), "the new name wins");
        assertEquals("nio", both.with(Map.of("creel.net.transport", "nio")).get(ConfKeys.NET_IO),
                "a later setting wins, under either name");
        CreelException bad = assertThrows(CreelException.class,
                () -> CreelConf.of(Map.of("creel.net.transport", "rdma")));
        assertTrue(bad.getMessage().contains("creel.net.io"), bad.getMessage());
        assertEquals(ConfKeys.NET_IO, ConfKeys.renamed().get("creel.net.transport"));
        assertTrue(!ConfKeys.all().containsKey("creel.net.transport"), "the old name is no key of its own");
    }
}
