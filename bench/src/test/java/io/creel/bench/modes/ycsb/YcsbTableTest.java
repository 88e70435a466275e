package io.creel.bench.modes.ycsb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class YcsbTableTest {
    private static YcsbResult run(double throughput, double readP50, double readP99) {
        return YcsbResult.parse(List.of("[OVERALL], RunTime(ms), 1000", "[OVERALL], Throughput(ops/sec), " + throughput,
                "[READ], Operations, " + (long) throughput, "[READ], Return=OK, " + (long) throughput,
                "[READ], 50thPercentileLatency(us), " + readP50, "[READ], 99thPercentileLatency(us), " + readP99,
                "[VERIFY], Return=OK, " + (long) throughput));
    }

    private static YcsbTable table() {
        Map<String, Map<String, YcsbResult>> results = new LinkedHashMap<>();
        results.put("creel", new LinkedHashMap<>(Map.of("c", run(3000, 200, 900))));
        results.put("redis", new LinkedHashMap<>(Map.of("c", run(2000, 400, 450))));
        return new YcsbTable(results, List.of("c", "e"));
    }

    @Test
    void rowsCarryCreelOverRedisRatios() {
        List<YcsbTable.Row> rows = table().rows();
        assertEquals(2, rows.size());
        YcsbTable.Row read = rows.get(1);
        assertEquals("READ", read.op());
        assertEquals(1.5, read.opsRatio(), 1e-9);
        assertEquals(0.5, read.p50Ratio(), 1e-9);
        assertEquals(2.0, read.p99Ratio(), 1e-9);
        assertTrue(Double.isNaN(rows.get(0).p50Ratio()), "no latency for the workload as a whole");
    }

    @Test
    void theTablePrintsEveryRowAndTheFootnote() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        table().print(new PrintStream(bytes, true, StandardCharsets.UTF_8), "header", YcsbBench.SCAN_NOTE);
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("C    READ"), text);
        assertTrue(text.contains("1.50"), text);
        assertTrue(text.contains("3,000 checks on Creel, 2,000 on Redis"), text);
        assertTrue(text.contains("workload E scans: in this run Creel's Table is ordered"), text);
    }

    @Test
    void theChartIsAPngOfThreePanels(@TempDir Path dir) throws Exception {
        Path png = dir.resolve("ycsb.png");
        YcsbChart.write(table(), png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertEquals(1000, image.getWidth());
        assertEquals(3 * 480, image.getHeight());
        assertTrue(Files.size(png) > 10_000);
    }
}
