package io.creel.bench;

import io.creel.bench.baseline.RedisPeer;
import io.creel.bench.baseline.RedisServer;
import io.creel.bench.cluster.BenchCluster;
import io.creel.bench.report.BenchReport;
import io.creel.bench.report.Measurement;
import io.creel.bench.scope.RunNamespace;
import io.creel.bench.scope.RunScope;
import io.creel.bench.stats.Summary;
import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.storage.local.LocalTierKeys;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;

/**
 * What every mode of a bench run shares: the settings, the cluster under test and its clients,
 * the run's node names and cleanup, the report, the progress line, the load driver, and Redis
 * (started on first use). It also owns how points are repeated: every figure is measured
 * {@code --repeat} times, and figures that are compared are measured in alternation.
 */
public final class BenchContext {
    /** The options the modes read. */
    public record Settings(List<Integer> clients, List<Integer> inFlight, List<Long> sizes, List<Integer> buffers,
                           String storageClass, boolean tcpOnly, int nodes, Duration durationPerPoint,
                           long maxOpsPerPoint, long fileSize, int bagFiles, long bagFileSize, int repeat,
                           long userFileSize, String transport, int replication) {

        /** The concurrency shapes (clients × in flight), every combination, in ascending order. */
        public List<int[]> shapes() {
            List<int[]> out = new ArrayList<>();
            for (int c : clients) {
                for (int f : inFlight) {
                    out.add(new int[] {c, f});
                }
            }
            return out;
        }

        /**
         * Names a data path in series names: the transport of {@code --transport} when one was forced
         * (then the one path measured), else "tcp" or "same-host".
         */
        public String pathName(boolean tcp) {
            return transport != null ? transport : BenchContext.pathName(tcp);
        }

        /** The data paths measured: same-host (mapped/local-file) and forced TCP, or TCP only. */
        public List<Boolean> paths() {
            return tcpOnly ? List.of(true) : List.of(false, true);
        }
    }

    private final BenchCluster cluster;
    private final BenchReport report;
    private final Progress progress;
    private final LoadDriver driver;
    private final Settings settings;
    private final ClientPool pool;
    private final RunNamespace names;
    private final RunScope scope;
    private RedisPeer redis;
    private boolean redisTried;

    public BenchContext(BenchCluster cluster, BenchReport report, Progress progress, LoadDriver driver,
                        Settings settings, ClientPool pool, RunNamespace names, RunScope scope) {
        this.cluster = cluster;
        this.report = report;
        this.progress = progress;
        this.driver = driver;
        this.settings = settings;
        this.pool = pool;
        this.names = names;
        this.scope = scope;
    }

    public BenchCluster cluster() {
        return cluster;
    }

    /** Client configuration of the cluster under test. */
    public CreelConf conf() {
        return cluster.clientConf();
    }

    public BenchReport report() {
        return report;
    }

    public Progress progress() {
        return progress;
    }

    public LoadDriver driver() {
        return driver;
    }

    public Settings settings() {
        return settings;
    }

    public ClientPool pool() {
        return pool;
    }

    /** The run's node names; every path a mode creates comes from here, so the run removes it. */
    public RunNamespace names() {
        return names;
    }

    /** The run's cleanup, for things a mode makes outside the cluster (files, processes). */
    public RunScope scope() {
        return scope;
    }

    /**
     * Redis, started on first use on a free port and stopped with the run; empty (with a note in
     * the report) when {@code redis-server} is not installed or does not start.
     */
    public synchronized Optional<RedisPeer> redis() {
        if (!redisTried) {
            redisTried = true;
            Optional<Path> exe = RedisServer.find();
            if (exe.isEmpty()) {
                skipRedis("redis-server not installed (apt-get install redis-server)");
            } else {
                try {
                    redis = scope.add("the Redis server", RedisPeer.start(exe.get(), progress));
                    report.fact("redis", redis.version());
                } catch (IOException e) {
                    skipRedis("redis-server did not start: " + e.getMessage());
                }
            }
        }
        return Optional.ofNullable(redis);
    }

    private void skipRedis(String why) {
        report.note(why + ": Redis comparisons skipped");
        System.err.println("bench: " + why + ": Redis comparisons skipped");
    }

    /** A point's label with its repetition, e.g. "lookup 50x16 [2/3]". */
    public String label(String what, int repetition) {
        return settings.repeat() == 1 ? what : what + " [" + (repetition + 1) + "/" + settings.repeat() + "]";
    }

    /** Measures one point {@code --repeat} times, back to back, and adds it to the report. */
    public Measurement repeat(String mode, String series, Map<String, Object> params, IntFunction<Summary> point) {
        List<Summary> runs = new ArrayList<>();
        for (int r = 0; r < settings.repeat(); r++) {
            runs.add(point.apply(r));
        }
        Measurement m = new Measurement(mode, series, params, runs);
        report.add(m);
        return m;
    }

    /** One of the points {@link #alternate} measures. */
    public record Point(String series, Map<String, Object> params, IntFunction<Summary> measure) {
    }

    /**
     * Measures several points in alternation — A, B, A, B, ... — {@code --repeat} times each, so
     * a change in the machine's load between repetitions falls on both sides of a comparison; adds
     * them to the report in the order given.
     */
    public List<Measurement> alternate(String mode, List<Point> points) {
        List<List<Summary>> runs = new ArrayList<>();
        points.forEach(p -> runs.add(new ArrayList<>()));
        for (int r = 0; r < settings.repeat(); r++) {
            for (int i = 0; i < points.size(); i++) {
                runs.get(i).add(points.get(i).measure().apply(r));
            }
        }
        List<Measurement> out = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            Measurement m = new Measurement(mode, points.get(i).series(), points.get(i).params(), runs.get(i));
            report.add(m);
            out.add(m);
        }
        return out;
    }

    /** Names a data path in series names. */
    public static String pathName(boolean tcp) {
        return tcp ? "tcp" : "same-host";
    }

    /** Clients of the cluster, same-host or forced-TCP, opened on first use. */
    public static final class ClientPool implements AutoCloseable {
        private final CreelConf conf;
        private final List<CreelClient> local = new ArrayList<>();
        private final List<CreelClient> tcp = new ArrayList<>();
        private CreelClient mainLocal;
        private CreelClient mainTcp;
        private boolean closed;

        public ClientPool(CreelConf conf) {
            this.conf = conf;
        }

        /** The client of single-client runs (default event loops). */
        public synchronized CreelClient main(boolean forceTcp) {
            checkOpen();
            if (forceTcp) {
                if (mainTcp == null) {
                    mainTcp = CreelClient.connect(conf.with(LocalTierKeys.LOCAL_ACCESS, "false"));
                }
                return mainTcp;
            }
            if (mainLocal == null) {
                mainLocal = CreelClient.connect(conf);
            }
            return mainLocal;
        }

        /**
         * {@code n} independent clients (each its own connections and one event-loop thread), as
         * {@code n} separate client processes would be; the same ones are handed out again.
         */
        public synchronized List<CreelClient> many(int n, boolean forceTcp) {
            checkOpen();
            List<CreelClient> list = forceTcp ? tcp : local;
            CreelConf c = conf.with(ConfKeys.NET_EVENT_LOOPS, "1");
            if (forceTcp) {
                c = c.with(LocalTierKeys.LOCAL_ACCESS, "false");
            }
            while (list.size() < n) {
                list.add(CreelClient.connect(c));
            }
            return List.copyOf(list.subList(0, n));
        }

        private void checkOpen() {
            if (closed) {
                throw new IllegalStateException("the bench's clients are closed: the run is over");
            }
        }

        @Override
        public synchronized void close() {
            closed = true;
            List<CreelClient> all = new ArrayList<>(local);
            all.addAll(tcp);
            if (mainLocal != null) {
                all.add(mainLocal);
            }
            if (mainTcp != null) {
                all.add(mainTcp);
            }
            local.clear();
            tcp.clear();
            mainLocal = null;
            mainTcp = null;
            all.forEach(CreelClient::close);
        }
    }
}
