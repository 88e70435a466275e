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
 * The YCSB comparison as one PNG of two panels: throughput of both stores per workload, and the
 * Creel/Redis ratios per workload (throughput, and the p50 and p99 of reads).
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
            opsRatio.add(zeroIfNaN(all.opsRatio()));
            YcsbTable.Row read = table.rows().stream()
                    .filter(r -> r.workload().equals(all.workload()) && r.op().equals("READ")).findFirst().orElse(null);
            p50Ratio.add(read == null ? 0 : zeroIfNaN(read.p50Ratio()));
            p99Ratio.add(read == null ? 0 : zeroIfNaN(read.p99Ratio()));
        }
        CategoryChart ops = chart("YCSB throughput, 1 KiB records", "ops/s");
        ops.addSeries("creel", workloads, creel);
        ops.addSeries("redis", workloads, redis);
        CategoryChart ratios = chart("Creel / Redis (throughput: higher is better; latency: lower)", "ratio");
        ratios.addSeries("throughput", workloads, opsRatio);
        ratios.addSeries("read p50", workloads, p50Ratio);
        ratios.addSeries("read p99", workloads, p99Ratio);

        BufferedImage all = new BufferedImage(W, 2 * H, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = all.createGraphics();
        g.drawImage(BitmapEncoder.getBufferedImage(ops), 0, 0, null);
        g.drawImage(BitmapEncoder.getBufferedImage(ratios), 0, H, null);
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

    private static double zeroIfNaN(double v) {
        return Double.isNaN(v) ? 0 : v;
    }
}
