package io.creel.storage.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.server.StorageServer;
import io.creel.storage.spi.BlockTransportProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The runtime and clients find this module's tiers and transports by ServiceLoader alone. */
class ServiceDiscoveryTest {
    @Test
    void bothTiersAreFound() {
        assertTrue(StorageServer.availableTiers().containsAll(List.of("dram", "disk")),
                StorageServer.availableTiers().toString());
        assertEquals("dram", StorageServer.findTier("dram").name());
        assertEquals("disk", StorageServer.findTier("disk").name());
    }

    @Test
    void allThreeTransportsAreFound() {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(BlockTransportProvider.class).forEach(p -> names.add(p.name()));
        assertTrue(names.containsAll(List.of("tcp", "mapped", "local-file")), names.toString());
    }
}
