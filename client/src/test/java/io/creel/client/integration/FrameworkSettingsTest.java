package io.creel.client.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A framework's settings under its prefix become one CreelConf the same way for every integration. */
class FrameworkSettingsTest {
    @Test
    void passThroughKeysThenTheNamenodeAddressMakeTheCreelConf() {
        FrameworkSettings s = FrameworkSettings.of("spark.creel.", Map.of(
                "conf.creel.block.size", "2m",
                "conf.creel.namenode.address", "creel://ignored:1",
                "namenode.address", " creel://nn:9060 ",
                "shuffle.root", "/x"));
        CreelConf c = s.creelConf();
        assertEquals(2L << 20, c.get(ConfKeys.BLOCK_SIZE));
        assertEquals(List.of(HostPort.parse("creel://nn:9060")), c.get(ConfKeys.NAMENODE_ADDRESS),
                "namenode.address wins over the pass-through key");
        assertEquals("spark.creel.shuffle.root", s.name("shuffle.root"));
    }

    @Test
    void theSiteFileIsTheLowestPrecedence(@TempDir Path dir) throws Exception {
        Assumptions.assumeTrue(System.getenv(CreelConf.CONF_DIR_ENV) == null, "CREEL_CONF_DIR would win");
        Files.writeString(dir.resolve(CreelConf.SITE_FILE), "creel.block.size = 4m\ncreel.client.request.timeout = 9s\n");
        CreelConf c = FrameworkSettings.of("fs.creel.", Map.of("site.dir", dir.toString(),
                "conf.creel.block.size", "1m")).creelConf();
        assertEquals(1L << 20, c.get(ConfKeys.BLOCK_SIZE));
        assertEquals(java.time.Duration.ofSeconds(9), c.get(ConfKeys.CLIENT_REQUEST_TIMEOUT));
    }

    @Test
    void anUnknownPassThroughKeyIsAConfigurationErrorNamingIt() {
        CreelException e = assertThrows(CreelException.class, () -> FrameworkSettings.of("fs.creel.",
                Map.of("conf.creel.blok.size", "1m")).creelConf());
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("creel.blok.size"), e.getMessage());
    }

    @Test
    void aRenamedKeyStillWorksUnderItsOldSpellingAndTheNewSpellingWins() {
        FrameworkSettings old = FrameworkSettings.of("spark.creel.", Map.of("shuffle.storageClass", " disk "));
        assertEquals("disk", old.storageClass("shuffle.", "shuffle.storageClass"));
        FrameworkSettings both = FrameworkSettings.of("spark.creel.", Map.of("shuffle.storageClass", "disk",
                "shuffle.storage.class", "dram"));
        assertEquals("dram", both.storageClass("shuffle.", "shuffle.storageClass"));
        FrameworkSettings none = FrameworkSettings.of("spark.creel.", Map.of());
        assertEquals("", none.storageClass("shuffle.", "shuffle.storageClass"), "empty inherits");
        assertEquals("30s", none.get("shuffle.heartbeat.interval", "30s", "shuffle.heartbeatInterval"));
    }
}
