package io.creel.ops.metrics;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.RpcProbe;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.datapoints.GaugeDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Function;

/**
 * Requests, errors, latencies and connections of the process's RPC servers, labelled by server
 * ("namenode", "dram storage") and opcode. A {@link Function} from server name to {@link RpcProbe}, to
 * be installed with {@link io.creel.common.rpc.RpcProbes#install}. Each probe finds a data point by
 * array index; a label set is looked up once, on its first request, so no series exists for an
 * opcode nobody sent.
 */
public final class RpcMetrics implements Function<String, RpcProbe> {
    /** Seconds: from 50 µs (a same-host lookup) to 5 s (a timed-out region grant). */
    private static final double[] BUCKETS = {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
        0.05, 0.1, 0.25, 0.5, 1, 2.5, 5};

    private final Counter requests;
    private final Counter errors;
    private final Histogram latency;
    private final Gauge connections;
    private final RecentErrors recent = new RecentErrors(RecentErrors.DEFAULT_SIZE);

    public RpcMetrics(PrometheusRegistry registry) {
        requests = Counter.builder().name("creel_rpc_requests_total")
                .help("Requests an RPC server answered, per server kind and request type")
                .labelNames("server", "op").register(registry);
        errors = Counter.builder().name("creel_rpc_errors_total")
                .help("Requests an RPC server answered with an error, per server kind, request type and error code")
                .labelNames("server", "op", "code").register(registry);
        latency = Histogram.builder().name("creel_rpc_request_seconds")
                .help("Time from a request's arrival to its reply, per server kind and request type")
                .labelNames("server", "op").classicOnly().classicUpperBounds(BUCKETS).register(registry);
        connections = Gauge.builder().name("creel_rpc_connections")
                .help("Open connections to an RPC server, per server kind").labelNames("server").register(registry);
    }

    /** The last errors the process's RPC servers answered with, newest first. */
    public RecentErrors recentErrors() {
        return recent;
    }

    @Override
    public RpcProbe apply(String server) {
        return new Probe(server);
    }

    private final class Probe implements RpcProbe {
        private final String server;
        private final GaugeDataPoint open;
        private final AtomicReferenceArray<CounterDataPoint> requestsByOp;
        private final AtomicReferenceArray<DistributionDataPoint> latencyByOp;
        private final AtomicReferenceArray<CounterDataPoint> errorsByOpAndCode;
        private final int codes = ErrorCode.values().length;

        Probe(String server) {
            this.server = server;
            this.open = connections.labelValues(server);
            int ops = Opcode.values().length;
            requestsByOp = new AtomicReferenceArray<>(ops);
            latencyByOp = new AtomicReferenceArray<>(ops);
            errorsByOpAndCode = new AtomicReferenceArray<>(ops * codes);
        }

        @Override
        public void answered(Opcode op, CreelException error, long nanos) {
            int i = op.ordinal();
            CounterDataPoint r = requestsByOp.get(i);
            if (r == null) {
                // labelValues returns the same point for the same labels: a race here is harmless.
                r = requests.labelValues(server, op.name());
                requestsByOp.set(i, r);
            }
            r.inc();
            DistributionDataPoint l = latencyByOp.get(i);
            if (l == null) {
                l = latency.labelValues(server, op.name());
                latencyByOp.set(i, l);
            }
            l.observe(nanos / 1e9);
            if (error != null) {
                int j = i * codes + error.code().ordinal();
                CounterDataPoint e = errorsByOpAndCode.get(j);
                if (e == null) {
                    e = errors.labelValues(server, op.name(), error.code().name());
                    errorsByOpAndCode.set(j, e);
                }
                e.inc();
                recent.add(server, op, error);
            }
        }

        @Override
        public void connectionOpened() {
            open.inc();
        }

        @Override
        public void connectionClosed() {
            open.dec();
        }
    }
}
