package io.creel.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.rpc.Frames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.junit.jupiter.api.Test;

/** Tiers add request types without editing the core enum; the registry keeps their codes apart. */
class OpcodeRegistryTest {
    private static final TierOpcode PING = new TierOpcode(27, "TEST_PING", "test tier");

    @Test
    void aTiersOwnOpcodeRoundTripsThroughAFrame() {
        OpcodeRegistry registry = new OpcodeRegistry();
        assertNull(registry.ofCode(PING.code()), "unknown until its tier registers it");
        registry.register(PING);
        ByteBuf request = Frames.request(ByteBufAllocator.DEFAULT, PING, 41, Empty.INSTANCE);
        ByteBuf reply = Frames.ok(ByteBufAllocator.DEFAULT, PING, 41, Empty.INSTANCE);
        try {
            for (ByteBuf frame : new ByteBuf[] {request, reply}) {
                frame.skipBytes(Frame.LENGTH_FIELD);
                RequestType decoded = registry.ofCode(frame.readUnsignedByte());
                assertSame(PING, decoded);
                frame.readUnsignedByte(); // flags
                assertEquals(41, frame.readLong());
            }
        } finally {
            request.release();
            reply.release();
        }
        assertEquals("TEST_PING", PING.toString(), "messages print it as they print a core opcode");
        assertTrue(registry.all().contains(PING));
    }

    @Test
    void aCodeClaimedTwiceIsRefusedNamingBothOwners() {
        OpcodeRegistry registry = new OpcodeRegistry();
        registry.register(PING);
        CreelException e = assertThrows(CreelException.class,
                () -> registry.register(new TierOpcode(27, "OTHER_PING", "other tier")));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("TEST_PING (code 27, of test tier)"), e.getMessage());
        assertTrue(e.getMessage().contains("OTHER_PING (code 27, of other tier)"), e.getMessage());
        assertSame(PING, registry.ofCode(27), "the first claim stands");
    }

    @Test
    void aNameClaimedTwiceIsRefusedNamingBothOwners() {
        OpcodeRegistry registry = new OpcodeRegistry();
        registry.register(PING);
        CreelException e = assertThrows(CreelException.class,
                () -> registry.register(new TierOpcode(28, "TEST_PING", "other tier")));
        assertTrue(e.getMessage().contains("test tier") && e.getMessage().contains("other tier"), e.getMessage());
        CreelException core = assertThrows(CreelException.class,
                () -> registry.register(new TierOpcode(28, "LOOKUP", "other tier")));
        assertTrue(core.getMessage().contains("LOOKUP (code 2, of core)"), core.getMessage());
        assertNull(registry.ofCode(28));
    }

    @Test
    void registeringTheSameOpcodeAgainChangesNothing() {
        OpcodeRegistry registry = new OpcodeRegistry();
        registry.register(PING);
        registry.register(new TierOpcode(27, "TEST_PING", "test tier"));
        assertEquals(PING, registry.ofCode(27));
    }

    @Test
    void aTierCannotTakeACoreCode() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new TierOpcode(Opcode.BLOCK_READ.code(), "MY_READ", "test tier"));
        assertTrue(e.getMessage().contains("outside the range reserved for tiers (22 to 29)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new TierOpcode(23, "lower", "test tier"));
    }

    @Test
    void noCoreOpcodeLiesInTheTiersRange() {
        for (Opcode o : Opcode.values()) {
            assertFalse(o.code() >= TierOpcode.FIRST && o.code() <= TierOpcode.LAST, o + " uses a tier's code");
        }
    }

    @Test
    void theInstalledRegistryKnowsEveryCoreOpcode() {
        OpcodeRegistry installed = OpcodeRegistry.installed();
        assertSame(installed, OpcodeRegistry.installed(), "built once");
        for (Opcode o : Opcode.values()) {
            assertSame(o, installed.ofCode(o.code()));
        }
        assertNull(installed.ofCode(0));
        assertNull(installed.ofCode(255));
    }
}
