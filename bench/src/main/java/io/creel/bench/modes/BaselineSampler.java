package io.creel.bench.modes;

import io.creel.bench.BenchContext;
import io.creel.bench.baseline.MachineLimits;
import io.creel.bench.report.BaselineSample;
import io.creel.bench.stats.Summary;
import io.creel.bench.user.UserBench;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Samples the run's baselines (memory copy, the loopback socket, Redis, {@code cat}, {@code cp})
 * {@code --baseline-samples} times, spread over the run: at its checkpoints before the first mode,
 * between two modes and after the last, never in the middle of a Creel workload. Each sample has
 * the series and parameters of the point the modes compare with, so a target's baseline gathers
 * the mode's repetitions and these samples; a baseline that moved while Creel was measured shows
 * in its spread, and {@link io.creel.bench.stats.Verdict} calls the target unsettled.
 * Only the baselines some mode of the run compares with are sampled.
 */
public final class BaselineSampler {
    /**
     * One baseline point to sample.
     *
     * @param label   what the progress line says while it runs
     * @param series  the series of the mode's measurement of the same point, e.g. "memory copy"
     * @param params  the parameters of that measurement, equal to them (so the samples join it)
     * @param measure takes one sample
     */
    public record Probe(String label, String series, Map<String, Object> params, Supplier<Summary> measure) {
    }

    private final BenchContext ctx;
    private final List<String> modes;
    private final int[] rounds;
    private final int samples;
    private List<Probe> probes;
    private int taken;

    /** Samples {@code samples} times over a run of {@code modes}, in that order (0: no sampling). */
    public BaselineSampler(BenchContext ctx, List<String> modes, int samples) {
        this.ctx = ctx;
        this.modes = List.copyOf(modes);
        this.samples = samples;
        this.rounds = schedule(samples, modes.size());
    }

    /**
     * How many sampling rounds to take at each of the {@code modes + 1} checkpoints (index 0 before
     * the first mode, index i after mode i): spread evenly from the first checkpoint to the last, so
     * that the first and the last round frame the run; checkpoints get more than one round only when
     * there are more rounds than checkpoints.
     */
    public static int[] schedule(int samples, int modes) {
        if (samples < 0 || modes < 0) {
            throw new IllegalArgumentException("samples " + samples + ", modes " + modes);
        }
        int[] at = new int[modes + 1];
        if (samples == 1) {
            at[0] = 1;
            return at;
        }
        for (int i = 0; i < samples; i++) {
            at[(int) Math.round((double) i * modes / (samples - 1))]++;
        }
        return at;
    }

    /** The checkpoint's name: "before MODE" for the first, "after MODE" for the others. */
    String checkpointName(int index) {
        return index == 0 ? "before " + modes.get(0) : "after " + modes.get(index - 1);
    }

    /** A one-line account of the schedule, for the report's facts. */
    public String describe() {
        if (samples == 0) {
            return "none (--baseline-samples 0): each baseline only as its mode measures it";
        }
        List<String> where = new ArrayList<>();
        for (int i = 0; i < rounds.length; i++) {
            if (rounds[i] > 0) {
                where.add(checkpointName(i) + (rounds[i] > 1 ? " (x" + rounds[i] + ")" : ""));
            }
        }
        return samples + " round(s) of every baseline the run compares with, besides its mode's repetitions: "
                + String.join(", ", where);
    }

    /** Takes the rounds scheduled at checkpoint {@code index} (0 before the first mode, i after mode i). */
    public void checkpoint(int index) {
        for (int n = 0; n < rounds[index]; n++) {
            if (probes == null) {
                probes = probes();
            }
            taken++;
            String when = checkpointName(index);
            for (Probe p : probes) {
                ctx.progress().point("baseline sample " + taken + "/" + samples + " (" + when + "): " + p.label());
                Summary s = p.measure().get();
                ctx.report().baselineSample(new BaselineSample(p.series(), p.params(), when, s));
            }
        }
    }

    private List<Probe> probes() {
        Duration d = ctx.settings().durationPerPoint();
        List<Probe> out = new ArrayList<>();
        if (modes.contains("baseline")) {
            out.add(new Probe("memory copy", "memory copy", BaselineBench.MEMORY_COPY_POINT,
                    () -> MachineLimits.memoryCopy(BaselineBench.MEMORY_COPY_SIZE, d)));
            for (int buffer : ctx.settings().buffers()) {
                out.add(new Probe("tcp socket bandwidth buffer=" + buffer, "tcp socket bandwidth",
                        Map.of("buffer", buffer), () -> MachineLimits.tcpBandwidth(buffer, d)));
            }
            ctx.redis().ifPresent(redis -> out.add(new Probe("redis GET 1K 1x1", "redis GET",
                    Map.of("size", BaselineBench.REDIS_KV, "clients", 1, "inFlight", 1),
                    () -> redis.get("redis GET 1K 1x1", 1, 1, BaselineBench.REDIS_KV, d))));
        }
        for (String mode : List.of("lookup", "create")) {
            if (!modes.contains(mode)) {
                continue;
            }
            boolean set = mode.equals("create");
            String series = set ? "redis SET" : "redis GET";
            ctx.redis().ifPresent(redis -> {
                for (int[] shape : ctx.settings().shapes()) {
                    int clients = shape[0];
                    int inFlight = shape[1];
                    String label = series + " " + clients + "x" + inFlight;
                    out.add(new Probe(label, series, Map.of("size", BaselineBench.REDIS_SMALL, "clients", clients,
                            "inFlight", inFlight), () -> set
                            ? redis.set(label, clients, inFlight, BaselineBench.REDIS_SMALL, d)
                            : redis.get(label, clients, inFlight, BaselineBench.REDIS_SMALL, d)));
                }
            });
        }
        if (modes.contains("user")) {
            out.addAll(UserBench.checkpointProbes(ctx));
        }
        return out;
    }
}
