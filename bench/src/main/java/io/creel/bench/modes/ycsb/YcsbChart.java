package io.creel.bench.modes.ycsb;

import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The YCSB comparison as one PNG of three panels: throughput of both stores per workload, the
 * Creel/Redis throughput ratio per workload, and the Creel/Redis ratios of the read p50 and p99.
 */
final class YcsbChart {
    private static final int W = 1000;
    private static final int H = 480;

    private YcsbChart() {
    }

    static void write(YcsbTable table, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<String> workloads = new ArrayList<>();
        List<Double> creel = new ArrayList<>();
        List<Double> redis = new ArrayList<>();
        List<Double> opsRatio = new ArrayList<>();
        List<Double> p50Ratio = new ArrayList<>();
        List<Double> p99Ratio = new ArrayList<>();
        for (YcsbTable.Row all : table.rows()) {
            if (!all.op().equals("all")) {
                continue;
            }
            workloads.add(all.workload());
            creel.add(Math.max(0, all.creelOps()));
            redis.add(Math.max(0, all.redisOps()));
            opsRatio.add(ratioOrZero(all.opsRatio()));
            YcsbTable.Row read = table.rows().stream()
                    .filter(r -> r.workload().equals(all.workload()) && r.op().equals("READ")).findFirst().orElse(null);
            p50Ratio.add(read == null ? 0 : ratioOrZero(read.p50Ratio()));
            p99Ratio.add(read == null ? 0 : ratioOrZero(read.p99Ratio()));
        }
        CategoryChart ops = chart("YCSB throughput, 1 KiB records", "ops/s");
        ops.addSeries("creel", workloads, creel);
        ops.addSeries("redis", workloads, redis);
        // Throughput and latency ratios get panels of their own: tails can differ 100x where throughput differs 2x.
        CategoryChart throughput = chart("Creel / Redis throughput (above 1: Creel faster)", "ratio");
        throughput.addSeries("throughput", workloads, opsRatio);
        throughput.addSeries("parity", workloads, workloads.stream().map(w -> 1.0).toList());
        CategoryChart latency = chart("Creel / Redis read latency (below 1: Creel faster)", "ratio");
        latency.addSeries("read p50", workloads, p50Ratio);
        latency.addSeries("read p99", workloads, p99Ratio);

        List<CategoryChart> panels = List.of(ops, throughput, latency);
        BufferedImage all = new BufferedImage(W, panels.size() * H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = all.createGraphics();
        for (int i = 0; i < panels.size(); i++) {
            g.drawImage(BitmapEncoder.getBufferedImage(panels.get(i)), 0, i * H, null);
        }
        g.dispose();
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        ImageIO.write(all, "png", file.toFile());
    }

    private static CategoryChart chart(String title, String y) {
        CategoryChart c = new CategoryChartBuilder().width(W).height(H).title(title).xAxisTitle("workload")
                .yAxisTitle(y).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        return c;
    }

    /** A ratio that was not measured (no Redis, no reads) is drawn as no bar. */
    private static double ratioOrZero(double v) {
        return Double.isNaN(v) || v < 0 ? 0 : v;
    }
}
