package io.creel.ops.metrics;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.RequestType;
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
 * Requests, errors, latencies and connections of the process's RPC servers, labelled by service
 * (the kind of RPC server: "namenode", "dram storage") and opcode; {@code server} is a storage
 * server's address in every metric that has it, so the kind has a label of its own. Expected
 * outcomes ({@link ExpectedOutcomes}) count as requests, not errors. A {@link Function} from service
 * to {@link RpcProbe}, to be installed with {@link io.creel.common.rpc.RpcProbes#install}. Each
 * probe finds a data point by array index; a label set is looked up once, on its first request, so
 * no series exists for an opcode nobody sent.
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
                .help("Requests an RPC server answered, per service (kind of RPC server) and request type")
                .labelNames("service", "op").register(registry);
        errors = Counter.builder().name("creel_rpc_errors_total")
                .help("Requests an RPC server answered with an error an operator should look at, per service "
                        + "(kind of RPC server), request type and error code")
                .labelNames("service", "op", "code").register(registry);
        latency = Histogram.builder().name("creel_rpc_request_seconds")
                .help("Time from a request's arrival to its reply, per service (kind of RPC server) and request type")
                .labelNames("service", "op").classicOnly().classicUpperBounds(BUCKETS).register(registry);
        connections = Gauge.builder().name("creel_rpc_connections")
                .help("Open connections to an RPC server, per service (kind of RPC server)").labelNames("service")
                .register(registry);
    }

    /** The last errors the process's RPC servers answered with, newest first. */
    public RecentErrors recentErrors() {
        return recent;
    }

    @Override
    public RpcProbe apply(String service) {
        return new Probe(service);
    }

    private final class Probe implements RpcProbe {
        private final String service;
        private final GaugeDataPoint open;
        private final AtomicReferenceArray<CounterDataPoint> requestsByOp;
        private final AtomicReferenceArray<DistributionDataPoint> latencyByOp;
        private final AtomicReferenceArray<CounterDataPoint> errorsByOpAndCode;
        private final int codes = ErrorCode.values().length;

        Probe(String service) {
            this.service = service;
            this.open = connections.labelValues(service);
            int ops = 256; // by wire code: the core opcodes and any tier's own (TierOpcode)
            requestsByOp = new AtomicReferenceArray<>(ops);
            latencyByOp = new AtomicReferenceArray<>(ops);
            errorsByOpAndCode = new AtomicReferenceArray<>(ops * codes);
        }

        @Override
        public void answered(RequestType op, CreelException error, long nanos) {
            int i = op.code();
            CounterDataPoint r = requestsByOp.get(i);
            if (r == null) {
                // labelValues returns the same point for the same labels: a race here is harmless.
                r = requests.labelValues(service, op.name());
                requestsByOp.set(i, r);
            }
            r.inc();
            DistributionDataPoint l = latencyByOp.get(i);
            if (l == null) {
                l = latency.labelValues(service, op.name());
                latencyByOp.set(i, l);
            }
            l.observe(nanos / 1e9);
            if (error != null && !ExpectedOutcomes.isAnswer(op, error.code())) {
                int j = i * codes + error.code().ordinal();
                CounterDataPoint e = errorsByOpAndCode.get(j);
                if (e == null) {
                    e = errors.labelValues(service, op.name(), error.code().name());
                    errorsByOpAndCode.set(j, e);
                }
                e.inc();
                recent.add(service, op, error);
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
