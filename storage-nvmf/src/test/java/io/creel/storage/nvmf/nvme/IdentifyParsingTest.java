package io.creel.storage.nvmf.nvme;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class IdentifyParsingTest {
    private static ByteBuffer page() {
        return ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
    }

    @Test
    void controllerFieldsComeFromTheirOffsets() {
        ByteBuffer d = page();
        d.put(4, "SERIAL42            ".getBytes(StandardCharsets.US_ASCII));
        d.put(24, "Linux".getBytes(StandardCharsets.US_ASCII));
        d.put(64, "6.1.0   ".getBytes(StandardCharsets.US_ASCII));
        d.put(77, (byte) 5);
        d.putShort(78, (short) 3);
        d.putShort(320, (short) 10);
        d.putShort(514, (short) 1024);
        d.putInt(516, 32);
        d.put(768, "nqn.sub".getBytes(StandardCharsets.US_ASCII));
        d.putInt(1792, 1028);
        IdentifyController c = IdentifyController.parse(d);
        assertEquals("SERIAL42", c.serial());
        assertEquals("Linux", c.model());
        assertEquals("6.1.0", c.firmware());
        assertEquals(3, c.controllerId());
        assertEquals(1000, c.keepAliveGranularityMillis());
        assertEquals(1024, c.maxCommands());
        assertEquals(32, c.namespaces());
        assertEquals("nqn.sub", c.subsystemNqn());
        assertEquals(1028 * 16, c.ioCapsuleBytes());
        assertEquals(1028 * 16 - 64, c.inCapsuleDataBytes());
        ControllerRegisters.Capabilities cap = new ControllerRegisters.Capabilities(1024, 7500, 4096, 4096, true);
        assertEquals(4096L << 5, c.maxTransferBytes(cap), "MDTS 5 in units of the 4 KiB minimum page");
        d.put(77, (byte) 0);
        assertEquals(Long.MAX_VALUE, IdentifyController.parse(d).maxTransferBytes(cap), "MDTS 0: no limit");
    }

    @Test
    void capabilitiesDecodeAndEncodeAlike() {
        long cap = 0x0020_0020_0F01_03FFL | 1L << 37;
        ControllerRegisters.Capabilities c = ControllerRegisters.Capabilities.decode(cap);
        assertEquals(1024, c.maxQueueEntries());
        assertEquals(15 * 500, c.timeoutMillis());
        assertEquals(4096, c.minPageSize());
        assertTrue(c.nvmCommandSet());
        assertEquals(c, ControllerRegisters.Capabilities.decode(c.encode()));
        assertEquals("1.3.0", ControllerRegisters.version(0x10300));
        assertEquals(0x00460001, ControllerRegisters.enableValue());
        assertTrue(ControllerRegisters.shutdownComplete(0x9));
    }

    @Test
    void aNamespaceTakesItsBlockSizeFromTheFormatInUse() {
        ByteBuffer d = page();
        d.putLong(0, 1 << 20);
        d.putLong(8, 1 << 20);
        d.put(25, (byte) 1);
        d.put(26, (byte) 1);
        d.putInt(128, 9 << 16);
        d.putInt(132, 12 << 16 | 8);
        IdentifyNamespace n = IdentifyNamespace.parse(1, d);
        assertEquals(4096, n.lbaDataSize());
        assertEquals(8, n.metadataSize());
        assertEquals(1, n.formatIndex());
        assertEquals((1L << 20) * 4096, n.sizeBytes());
    }

    @Test
    void anInactiveOrInconsistentNamespaceIsRefusedWithTheReason() {
        ByteBuffer inactive = page();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IdentifyNamespace.parse(9, inactive));
        assertTrue(e.getMessage().contains("namespace 9"), e.getMessage());
        ByteBuffer badIndex = page();
        badIndex.put(25, (byte) 0);
        badIndex.put(26, (byte) 3);
        assertThrows(IllegalArgumentException.class, () -> IdentifyNamespace.parse(1, badIndex));
        assertThrows(IllegalArgumentException.class, () -> IdentifyNamespace.parse(1, ByteBuffer.allocate(100)));
        assertThrows(IllegalArgumentException.class, () -> IdentifyController.parse(ByteBuffer.allocate(100)));
    }
}
