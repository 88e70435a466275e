package io.creel.storage.nvmf.format;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.StorageServerInfo;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The attributes an nvmf server publishes, as a client reads them back, and what it makes of bad ones. */
class NvmfAttributesTest {
    private static final VolumeLayout LAYOUT = VolumeLayout.plan(512, 1 << 20, 1 << 20);

    private static StorageServerInfo server(Map<String, String> attributes) {
        return StorageServerInfo.of(1, "nvmf", "nvmf", "host-a", 9070, "machine", LAYOUT.blockCount(),
                LAYOUT.blockSize(), 77, attributes);
    }

    @Test
    void whatTheServerPublishesTheClientReadsBack() {
        NvmfAttributes a = new NvmfAttributes("10.0.2.15", 4420, 4421, "nqn.2024-01.io.creel:lab", 1,
                NvmfAttributes.Digest.HEADER, LAYOUT);
        assertEquals(a, NvmfAttributes.of(server(a.toMap())));
        assertEquals("header", a.toMap().get(NvmfAttributes.TCP_DIGEST));
    }

    @Test
    void aServerOfAnotherTierHasNone() {
        assertNull(NvmfAttributes.of(server(Map.of("local.data.path", "/x"))));
    }

    @Test
    void malformedAttributesNameTheAttribute() {
        Map<String, String> m = new HashMap<>(new NvmfAttributes("h", 4420, 0, "nqn.x", 1,
                NvmfAttributes.Digest.NONE, LAYOUT).toMap());
        m.put(NvmfAttributes.TCP_PORT, "70000");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NvmfAttributes.of(server(m)));
        assertTrue(e.getMessage().contains("nvmf.tcp.port"), e.getMessage());
        m.put(NvmfAttributes.TCP_PORT, "4420");
        m.remove(NvmfAttributes.NSID);
        e = assertThrows(IllegalArgumentException.class, () -> NvmfAttributes.of(server(m)));
        assertTrue(e.getMessage().contains("nvmf.nsid"), e.getMessage());
        m.put(NvmfAttributes.NSID, "1");
        m.put(NvmfAttributes.DATA_SECTOR, "3");
        e = assertThrows(IllegalArgumentException.class, () -> NvmfAttributes.of(server(m)));
        assertTrue(e.getMessage().contains("inconsistent"), e.getMessage());
        m.put(NvmfAttributes.DATA_SECTOR, Long.toString(LAYOUT.dataSector()));
        m.put(NvmfAttributes.TCP_DIGEST, "crc");
        assertThrows(IllegalArgumentException.class, () -> NvmfAttributes.of(server(m)));
    }
}
