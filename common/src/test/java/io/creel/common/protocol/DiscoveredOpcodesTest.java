package io.creel.common.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tiers' opcodes come from their TierOpcodeSource entries; two tiers on one code stop the registry. */
class DiscoveredOpcodesTest {
    /** A tier that declares code 28. */
    public static final class PingTier implements TierOpcodeSource {
        /** For ServiceLoader. */
        public PingTier() {
        }

        @Override
        public List<TierOpcode> opcodes() {
            return List.of(new TierOpcode(28, "PING", "ping tier"));
        }
    }

    /** Another tier that declares code 28 too. */
    public static final class PongTier implements TierOpcodeSource {
        /** For ServiceLoader. */
        public PongTier() {
        }

        @Override
        public List<TierOpcode> opcodes() {
            return List.of(new TierOpcode(28, "PONG", "pong tier"));
        }
    }

    @TempDir
    Path dir;

    /** A class path whose only TierOpcodeSource entries are {@code sources}. */
    private URLClassLoader withSources(Class<?>... sources) throws IOException {
        Path services = Files.createDirectories(dir.resolve("META-INF/services"));
        StringBuilder entries = new StringBuilder();
        for (Class<?> s : sources) {
            entries.append(s.getName()).append('\n');
        }
        Files.writeString(services.resolve(TierOpcodeSource.class.getName()), entries);
        return new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader());
    }

    @Test
    void aSourceOnTheClassPathAddsItsOpcodes() throws IOException {
        try (URLClassLoader loader = withSources(PingTier.class)) {
            OpcodeRegistry r = OpcodeRegistry.discovered(loader);
            assertEquals(new TierOpcode(28, "PING", "ping tier"), r.ofCode(28));
            assertSame(Opcode.LOOKUP, r.ofCode(Opcode.LOOKUP.code()));
        }
    }

    @Test
    void twoSourcesOnOneCodeAreRefusedNamingBothTiers() throws IOException {
        try (URLClassLoader loader = withSources(PingTier.class, PongTier.class)) {
            CreelException e = assertThrows(CreelException.class, () -> OpcodeRegistry.discovered(loader));
            assertEquals(ErrorCode.CONFIGURATION, e.code());
            assertTrue(e.getMessage().contains("opcode 28 is claimed twice: PING (code 28, of ping tier) and PONG "
                    + "(code 28, of pong tier)"), e.getMessage());
        }
    }
}
