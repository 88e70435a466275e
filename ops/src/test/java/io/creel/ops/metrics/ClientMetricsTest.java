package io.creel.ops.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.common.namespace.NodeType;
import io.creel.minicluster.MiniCluster;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** An embedding application's registry with Creel's client-side figures in it. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClientMetricsTest {
    @Test
    void anApplicationsRegistryShowsItsClientsCacheAndTheBytesItMoved() throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        try (MiniCluster cluster = MiniCluster.builder().temporaryDirectories().dram(16 << 20).disk(0).servers(1, 0)
                .start();
             CreelClient client = CreelClient.connect(cluster.clientConf())) {
            CreelMetrics.client(registry, client);
            byte[] data = new byte[3 << 20]; // several blocks
            try (OutputStream out = client.create("/f", NodeType.FILE).join().outputStream()) {
                out.write(data);
            }
            for (int i = 0; i < 2; i++) {
                try (InputStream in = client.lookup("/f").join().inputStream()) {
                    assertEquals(data.length, in.readAllBytes().length);
                }
            }
            String m = scrape(registry);
            long hits = client.blockCache().hits();
            long misses = client.blockCache().misses();
            assertTrue(hits + misses > 0, "the reads went through the cache");
            assertEquals(hits, value(m, "creel_client_block_cache_hits_total"), m);
            assertEquals(misses, value(m, "creel_client_block_cache_misses_total"), m);
            assertEquals(client.blockCache().size(), value(m, "creel_client_block_cache_entries"), m);
            assertTrue(m.contains("creel_transfer_bytes_total{direction=\"read\""), m);
            // Once per registry: a second registration is refused, not silently doubled.
            assertThrows(IllegalStateException.class, () -> CreelMetrics.client(registry, client));
        }
    }

    private static String scrape(PrometheusRegistry registry) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ExpositionFormats.init().getPrometheusTextFormatWriter().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double value(String exposition, String series) {
        Matcher mt = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(exposition);
        if (!mt.find()) {
            throw new AssertionError(series + " is not in the registry:\n" + exposition);
        }
        return Double.parseDouble(mt.group(1));
    }
}
