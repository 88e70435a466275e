package io.creel.bench.report;

import io.creel.bench.stats.Summary;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report's charts as one PNG of stacked panels: latency vs value size (kv), throughput vs
 * clients (lookup, create, Redis), bandwidth vs buffer size (read/write, loopback socket), each
 * point the median of its repetitions. Panels without data are left out.
 */
public final class Charts {
    private static final int W = 1000;
    private static final int H = 520;

    private Charts() {
    }

    /** Writes the charts to {@code file}; returns the number of panels drawn. */
    public static int write(BenchReport report, Path file) throws IOException {
        System.setProperty("java.awt.headless", "true");
        List<XYChart> panels = new ArrayList<>();
        latencyVsSize(report).ifPresent(panels::add);
        throughputVsClients(report).ifPresent(panels::add);
        bandwidthVsBuffer(report).ifPresent(panels::add);
        if (panels.isEmpty()) {
            return 0;
        }
        BufferedImage all = new BufferedImage(W, H * panels.size(), BufferedImage.TYPE_INT_RGB);
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
        return panels.size();
    }

    private static java.util.Optional<XYChart> latencyVsSize(BenchReport r) {
        XYChart c = chart("kv: p50 latency vs value size", "value size (bytes)", "p50 latency (us)");
        int n = 0;
        for (String series : seriesOf(r, "kv")) {
            n += add(c, series, r.series(series), m -> m.param("size"), m -> m.median(Summary::p50Micros));
        }
        n += add(c, "redis GET 1x1", r.series("redis GET").stream().filter(m -> m.param("clients") == 1
                && m.param("inFlight") == 1 && m.param("size") == 1024).toList(), m -> m.param("size"),
                m -> m.median(Summary::p50Micros));
        return n == 0 ? java.util.Optional.empty() : java.util.Optional.of(c);
    }

    private static java.util.Optional<XYChart> throughputVsClients(BenchReport r) {
        XYChart c = chart("metadata: throughput vs concurrency", "clients x in flight", "ops/s");
        int n = 0;
        Map<String, List<Measurement>> groups = new LinkedHashMap<>();
        for (Measurement m : r.measurements()) {
            boolean meta = m.series().equals("lookup") || m.series().startsWith("create")
                    || (m.series().startsWith("redis") && m.param("size") != 1024);
            if (meta && m.param("clients") > 0) {
                groups.computeIfAbsent(m.series(), k -> new ArrayList<>()).add(m);
            }
        }
        for (Map.Entry<String, List<Measurement>> e : groups.entrySet()) {
            List<Measurement> sorted = new ArrayList<>(e.getValue());
            sorted.sort(java.util.Comparator.comparingLong(m -> m.param("clients") * m.param("inFlight")));
            n += add(c, e.getKey(), sorted, m -> m.param("clients") * m.param("inFlight"), m -> m.median(Summary::opsPerSec));
        }
        return n == 0 ? java.util.Optional.empty() : java.util.Optional.of(c);
    }

    private static java.util.Optional<XYChart> bandwidthVsBuffer(BenchReport r) {
        XYChart c = chart("sequential bandwidth vs application buffer", "buffer size (bytes)", "MB/s");
        int n = 0;
        for (String mode : List.of("read", "write")) {
            for (String series : seriesOf(r, mode)) {
                n += add(c, series, r.series(series), m -> m.param("buffer"), m -> m.median(Summary::bytesPerSec) / 1e6);
            }
        }
        if (n > 0) {
            add(c, "tcp socket (baseline)", r.series("tcp socket bandwidth"), m -> m.param("buffer"),
                    m -> m.median(Summary::bytesPerSec) / 1e6);
        }
        return n == 0 ? java.util.Optional.empty() : java.util.Optional.of(c);
    }

    private static List<String> seriesOf(BenchReport r, String mode) {
        return r.measurements().stream().filter(m -> m.mode().equals(mode)).map(Measurement::series).distinct()
                .toList();
    }

    private static XYChart chart(String title, String x, String y) {
        XYChart c = new XYChartBuilder().width(W).height(H).title(title).xAxisTitle(x).yAxisTitle(y).build();
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideE);
        return c;
    }

    private static int add(XYChart c, String name, List<Measurement> ms, ToDoubleFunction<Measurement> x,
                           ToDoubleFunction<Measurement> y) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (Measurement m : ms) {
            double xv = x.applyAsDouble(m);
            double yv = y.applyAsDouble(m);
            if (xv > 0 && yv > 0) {
                xs.add(xv);
                ys.add(yv);
            }
        }
        if (xs.isEmpty()) {
            return 0;
        }
        c.addSeries(name, xs, ys).setMarker(SeriesMarkers.CIRCLE);
        return 1;
    }
}
