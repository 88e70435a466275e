package io.creel.common.conf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Defaults, site file, CREEL_* environment, --conf: later layers win, and each value says where it came from. */
class ConfLayersTest {
    @TempDir
    Path dir;

    private ConfLayers.Setting setting(ConfLayers layers, String key) {
        return layers.settings().stream().filter(s -> s.key().equals(key)).findFirst().orElseThrow();
    }

    @Test
    void laterLayersWinAndEveryValueNamesItsLayer() throws Exception {
        Path site = Files.writeString(dir.resolve("creel-site.conf"),
                "creel.block.size = 2m\ncreel.client.request.timeout = 5s\ncreel.net.max.frame = 1m\n");
        ConfLayers layers = ConfLayers.load(site,
                Map.of("CREEL_CLIENT_REQUEST_TIMEOUT", "7s", "CREEL_NET_MAX_FRAME", "2m", "PATH", "/usr/bin"),
                Map.of("creel.net.max.frame", "3m"));
        assertEquals(2L << 20, layers.conf().get(ConfKeys.BLOCK_SIZE));
        assertEquals(new ConfLayers.Setting("creel.block.size", "2m", "site file " + site),
                setting(layers, "creel.block.size"));
        assertEquals(new ConfLayers.Setting("creel.client.request.timeout", "7s",
                "environment CREEL_CLIENT_REQUEST_TIMEOUT"), setting(layers, "creel.client.request.timeout"));
        assertEquals(new ConfLayers.Setting("creel.net.max.frame", "3m", "--conf"),
                setting(layers, "creel.net.max.frame"));
        ConfKey<?> any = ConfKeys.NAMENODE_ADDRESS;
        assertEquals(new ConfLayers.Setting(any.name(), any.defaultText(), "default"), setting(layers, any.name()));
        assertEquals(ConfKeys.all().size(), layers.settings().size(), "every known key, once");
    }

    @Test
    void aRenamedKeysOldNameWorksInEveryLayerAndSaysSo() throws Exception {
        Path site = Files.writeString(dir.resolve("creel-site.conf"), "creel.net.transport = nio\n");
        ConfLayers fromFile = ConfLayers.load(site, Map.of(), Map.of());
        assertEquals("nio", fromFile.conf().get(ConfKeys.NET_IO));
        assertEquals(new ConfLayers.Setting("creel.net.io", "nio", "site file " + site
                + ", as the deprecated creel.net.transport"), setting(fromFile, "creel.net.io"));
        ConfLayers fromEnv = ConfLayers.load(null, Map.of("CREEL_NET_TRANSPORT", "nio"), Map.of());
        assertEquals("nio", fromEnv.conf().get(ConfKeys.NET_IO));
        ConfLayers both = ConfLayers.load(site, Map.of(), Map.of("creel.net.io", "epoll"));
        assertEquals(new ConfLayers.Setting("creel.net.io", "epoll", "--conf"), setting(both, "creel.net.io"));
    }

    @Test
    void aVariableNamesItsKeyByUpperCaseAndUnderscores() {
        assertEquals("CREEL_STORAGE_DRAM_SIZE", ConfLayers.variableOf("creel.storage.dram.size"));
        assertEquals(Map.of("creel.block.size", "4m"), ConfLayers.fromEnvironment(Map.of("CREEL_BLOCK_SIZE", "4m")));
    }

    @Test
    void theScriptsOwnVariablesAndOtherHarnessesVariablesAreNotSettings() {
        assertEquals(Map.of(), ConfLayers.fromEnvironment(Map.of("CREEL_HOME", "/opt/creel", "CREEL_LOG_DIR", "/x",
                "CREEL_RDMA_TESTS", "1", "CREEL_LAB_OUT", "/tmp/lab", "HOME", "/root")));
    }

    @Test
    void aMisspeltVariableInASectionOfKeysStopsTheCommandNamingTheKeyItBecame() {
        CreelException e = assertThrows(CreelException.class, () -> ConfLayers.fromEnvironment(
                Map.of("CREEL_NAMENODE_ADDRES", "creel://localhost:1")));
        assertTrue(e.getMessage().contains("CREEL_NAMENODE_ADDRES sets 'creel.namenode.addres', which is no key"),
                e.getMessage());
    }

    @Test
    void aBadValueSaysWhichLayersItMayBeIn() {
        CreelException e = assertThrows(CreelException.class, () -> ConfLayers.load(null,
                Map.of("CREEL_BLOCK_SIZE", "lots"), Map.of()));
        assertTrue(e.getMessage().contains("creel.block.size") && e.getMessage().contains("CREEL_* environment"),
                e.getMessage());
    }
}
