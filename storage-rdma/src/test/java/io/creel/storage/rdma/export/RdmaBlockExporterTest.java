package io.creel.storage.rdma.export;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.local.tier.DiskTier;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.tier.RdmaExportLayout;
import io.creel.storage.rdma.tier.RdmaFabric;
import io.creel.storage.rdma.tier.TierFixture;
import io.creel.storage.spi.BlockExporter;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rdma exporter: what it registers and publishes for a DRAM volume, when it declines (and that
 * it says why), and that closing it cuts its clients off.
 */
class RdmaBlockExporterTest {
    @TempDir
    Path dir;
    private TierFixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @Test
    void aDramVolumeIsPublishedWithEverythingAClientNeeds() {
        fx = new TierFixture(dir, Map.of());
        BlockExporter.Export e = fx.export(new RdmaBlockExporter(fx.serverFabric));
        assertNotNull(e);
        assertEquals("rdma", new RdmaBlockExporter(fx.serverFabric).name());
        RdmaExportLayout layout = RdmaExportLayout.of(fx.info());
        assertEquals(TierFixture.SERVER, layout.endpoint().getAddress());
        assertTrue(layout.endpoint().getPort() > 0);
        assertEquals(1, layout.segments().size());
        assertTrue(layout.segments().get(0).length() >= (long) TierFixture.BLOCKS * TierFixture.BLOCK);
        assertTrue(layout.tags().length() >= TierFixture.BLOCKS * 8L);
        assertNotNull(layout.probe(), "a device with atomics publishes the probe word");
        assertEquals(ByteOrder.nativeOrder(), layout.tagOrder());
        assertEquals(AtomicSupport.GLOBAL, layout.atomics());
        assertEquals(layout, RdmaExportLayout.of(fx.info()), "the attributes describe the layout exactly");
    }

    @Test
    void aDeviceWithoutAtomicsPublishesNoProbeAndSaysSo() {
        fx = new TierFixture(dir, Map.of());
        fx.network.atomics(AtomicSupport.NONE);
        assertNotNull(fx.export(new RdmaBlockExporter(fx.serverFabric)));
        RdmaExportLayout layout = RdmaExportLayout.of(fx.info());
        assertNull(layout.probe());
        assertEquals(AtomicSupport.NONE, layout.atomics());
    }

    @Test
    void aVolumeWithoutMemoryIsDeclined() throws Exception {
        fx = new TierFixture(dir, Map.of());
        CreelConf conf = fx.serverConf.with(Map.of("creel.storage.disk.path", dir.resolve("disk").toString(),
                "creel.storage.disk.size", "1m"));
        try (Volume disk = new DiskTier().open(new TierContext(conf, "disk", "localhost", "h", p -> 7001))) {
            assertNull(new RdmaBlockExporter(fx.serverFabric).export(disk, TierFixture.context(conf)));
            CreelException e = assertThrows(CreelException.class, () -> new RdmaBlockExporter(fx.serverFabric)
                    .export(disk, TierFixture.context(conf.with(Map.of("creel.rdma.enabled", "true")))));
            assertEquals(ErrorCode.CONFIGURATION, e.code());
            assertTrue(e.getMessage().contains("only DRAM volumes are served over RDMA"), e.getMessage());
        }
    }

    @Test
    void withoutRdmaTheExporterDeclinesSayingWhatIsMissingUnlessRdmaIsRequired() {
        fx = new TierFixture(dir, Map.of());
        RdmaFabric missing = new RdmaFabric(fx.network, () -> "libdisni.so not found on java.library.path [/x]");
        assertNull(new RdmaBlockExporter(missing).export(fx.volume, TierFixture.context(fx.serverConf)));
        CreelException e = assertThrows(CreelException.class, () -> new RdmaBlockExporter(missing)
                .export(fx.volume, TierFixture.context(fx.serverConf.with(Map.of("creel.rdma.enabled", "true")))));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("dram storage localhost:7000: cannot serve over RDMA "
                + "(creel.rdma.enabled=true): libdisni.so not found"), e.getMessage());
        assertNull(new RdmaBlockExporter(fx.serverFabric).export(fx.volume,
                TierFixture.context(fx.serverConf.with(Map.of("creel.rdma.enabled", "false")))), "switched off");
    }

    @Test
    void anAddressWithoutAnRdmaDeviceIsDeclinedNamingTheAddress() {
        fx = new TierFixture(dir, Map.of());
        CreelConf elsewhere = fx.serverConf.with(Map.of("creel.rdma.address", "not-an-address.invalid"));
        assertNull(new RdmaBlockExporter(fx.serverFabric).export(fx.volume, TierFixture.context(elsewhere)));
        CreelException e = assertThrows(CreelException.class, () -> new RdmaBlockExporter(fx.serverFabric)
                .export(fx.volume, TierFixture.context(elsewhere.with(Map.of("creel.rdma.enabled", "true")))));
        assertTrue(e.getMessage().contains("creel.rdma.address=not-an-address.invalid is not an address"),
                e.getMessage());
    }

    @Test
    void closingTheExportDisconnectsItsClientsAndGivesTheMemoryBack() throws Exception {
        fx = new TierFixture(dir, Map.of());
        BlockExporter.Export export = fx.export(new RdmaBlockExporter(fx.serverFabric));
        RdmaExportLayout layout = RdmaExportLayout.of(fx.info());
        try (RdmaDevice client = fx.network.open(TierFixture.CLIENT, RdmaSettings.defaults())) {
            RdmaConnection c = client.connect(layout.endpoint()).get(30, TimeUnit.SECONDS);
            assertEquals(1, ((RdmaBlockExporter.Exported) export).connectionCount());
            export.close();
            assertTrue(c.failure() != null || !c.isOpen(), "the client was disconnected");
            var failed = client.connect(layout.endpoint());
            assertEquals(RdmaException.Kind.UNREACHABLE, RdmaException.find(assertThrows(Exception.class,
                    () -> failed.get(30, TimeUnit.SECONDS))).kind(), "nothing listens any more");
        }
    }
}
