package io.creel.storage.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.storage.BlockTransportProvider;
import io.creel.common.storage.runtime.StorageServerRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The runtime and clients find this module's tiers and transports by ServiceLoader alone. */
class ServiceDiscoveryTest {
    @Test
    void bothTiersAreFound() {
        assertTrue(StorageServerRuntime.availableTiers().containsAll(List.of("dram", "disk")),
                StorageServerRuntime.availableTiers().toString());
        assertEquals("dram", StorageServerRuntime.findTier("dram").name());
        assertEquals("disk", StorageServerRuntime.findTier("disk").name());
    }

    @Test
    void allThreeTransportsAreFound() {
        List<String> names = new ArrayList<>();
        ServiceLoader.load(BlockTransportProvider.class).forEach(p -> names.add(p.name()));
        assertTrue(names.containsAll(List.of("tcp", "mapped", "local-file")), names.toString());
    }
}
