package io.creel.storage.rdma;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RdmaSettingsTest {
    @Test
    void absentKeysKeepTheDocumentedDefaults() {
        RdmaSettings s = RdmaSettings.from(key -> null);
        assertEquals(RdmaSettings.defaults(), s);
        assertEquals(Duration.ofSeconds(5), s.connectTimeout());
        assertEquals(Duration.ofSeconds(10), s.operationTimeout());
        assertEquals(64, s.queueDepth());
        assertEquals(4096, s.completionQueueSize());
        assertEquals(128, s.listenBacklog());
    }

    @Test
    void readsEveryKey() {
        Map<String, String> conf = Map.of(
                "creel.rdma.connect.timeout.ms", "1500",
                "creel.rdma.op.timeout.ms", " 250 ",
                "creel.rdma.queue.depth", "16",
                "creel.rdma.cq.size", "1024",
                "creel.rdma.listen.backlog", "8");
        RdmaSettings s = RdmaSettings.from(conf::get);
        assertEquals(new RdmaSettings(Duration.ofMillis(1500), Duration.ofMillis(250), 16, 1024, 8), s);
    }

    @Test
    void aValueThatIsNotANumberNamesItsKey() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RdmaSettings.from(Map.of("creel.rdma.queue.depth", "many")::get));
        assertTrue(e.getMessage().startsWith("creel.rdma.queue.depth must be a whole number"), e.getMessage());
    }

    @Test
    void outOfRangeValuesNameTheirKeyAndTheRange() {
        assertMessage("creel.rdma.queue.depth must be between 1 and 32768, got 0", Map.of("creel.rdma.queue.depth", "0"));
        assertMessage("creel.rdma.op.timeout.ms must be positive, got PT0S", Map.of("creel.rdma.op.timeout.ms", "0"));
        assertMessage("creel.rdma.cq.size must be between 128 and 4194304, got 64",
                Map.of("creel.rdma.queue.depth", "128", "creel.rdma.cq.size", "64"));
        assertMessage("creel.rdma.listen.backlog is out of range: 99999999999",
                Map.of("creel.rdma.listen.backlog", "99999999999"));
    }

    @Test
    void withQueueDepthGrowsTheCompletionQueueWhenNeeded() {
        RdmaSettings s = RdmaSettings.defaults().withQueueDepth(8192);
        assertEquals(8192, s.queueDepth());
        assertEquals(8192, s.completionQueueSize());
        assertEquals(4096, RdmaSettings.defaults().withQueueDepth(4).completionQueueSize());
    }

    private static void assertMessage(String expected, Map<String, String> conf) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RdmaSettings.from(conf::get));
        assertEquals(expected, e.getMessage());
    }
}
