package io.creel.storage.rdma.tier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.RemoteRegion;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rdma.* attributes of a server's description: written, read back, and refused when wrong. */
class RdmaExportLayoutTest {
    private static final int BLOCK = 1 << 20;

    private static StorageServerInfo server(long blocks, Map<String, String> attributes) {
        return StorageServerInfo.of(1, "dram", "dram", "h", 9000, "host", blocks, BLOCK, 77, attributes);
    }

    private static RdmaExportLayout layout() {
        return new RdmaExportLayout(new InetSocketAddress("10.1.2.3", 4791),
                List.of(new RemoteRegion(0x7f00_0000_0000L, 1L << 30, 0x1234), new RemoteRegion(0x7f80_0000_0000L,
                        1L << 20, 0xabcd)), 1024, new RemoteRegion(0x5000, 1025 * 8, 0x55),
                new RemoteRegion(0x6000, 8, 0x66), ByteOrder.LITTLE_ENDIAN, AtomicSupport.DEVICE);
    }

    @Test
    void aLayoutSurvivesTheServersDescription() {
        RdmaExportLayout l = layout();
        StorageServerInfo s = server(1025, l.toAttributes());
        assertTrue(RdmaExportLayout.offeredBy(s));
        assertEquals(l, RdmaExportLayout.of(s));
        assertEquals(l.segments().get(1), l.segmentOf(1024));
        assertEquals(l.segments().get(0), l.segmentOf(1023));
        assertEquals(1023L * BLOCK + 5, l.offsetInSegment(1023, BLOCK, 5));
        assertEquals(5, l.offsetInSegment(1024, BLOCK, 5));
        assertEquals(8 * 1024, RdmaExportLayout.tagOffset(1024));
    }

    @Test
    void aServerWithoutRdmaAttributesOffersNoExport() {
        assertFalse(RdmaExportLayout.offeredBy(server(4, Map.of())));
    }

    @Test
    void missingOrMalformedAttributesAreRefusedNamingTheAttribute() {
        Map<String, String> good = layout().toAttributes();
        String[][] broken = {
            {"rdma.port", "0", "rdma.port out of range"},
            {"rdma.port", "x", "rdma.port is not a number"},
            {"rdma.segments", "12+34", "rdma.segments: not address+length:rkey"},
            {"rdma.segments", "zz+1:2", "not address+length:rkey in hex"},
            {"rdma.tags", "", "has no rdma.tags"},
            {"rdma.tag.order", "middle", "rdma.tag.order must be little or big"},
            {"rdma.atomics", "some", "rdma.atomics is not none, device or global"},
            {"rdma.segment.blocks", "2048", "lists 2 segments"},
        };
        for (String[] b : broken) {
            Map<String, String> a = new HashMap<>(good);
            a.put(b[0], b[1]);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> RdmaExportLayout.of(server(1025, a)), b[0] + "=" + b[1]);
            assertTrue(e.getMessage().contains(b[2]), e.getMessage());
        }
    }

    @Test
    void segmentsOrATagTableTooShortForTheServersBlocksAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RdmaExportLayout.of(server(2048, layout().toAttributes())));
        assertTrue(e.getMessage().contains("segment 1 is shorter than its 1024 blocks"), e.getMessage());
        Map<String, String> a = new HashMap<>(layout().toAttributes());
        a.put("rdma.tags", "5000+8:55");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RdmaExportLayout.of(server(1025, a)))
                .getMessage().contains("shorter than 1025 tag words"));
    }
}
