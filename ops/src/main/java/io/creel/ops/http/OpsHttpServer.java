package io.creel.ops.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.ops.health.Readiness;
import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.security.MessageDigest;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A daemon's HTTP side, on the JDK's HTTP server: {@code /health/live}, {@code /health/ready}
 * ({@code /health} is the same), {@code /metrics} in the Prometheus text format, and a page at
 * {@code /} with {@code /status.json} when the daemon has one (the namenode's status page).
 * Everything else is 404; methods other than GET and HEAD are 405. With a token (security on),
 * everything but the health probes answers 401 without {@code Authorization: Bearer TOKEN}.
 */
public final class OpsHttpServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(OpsHttpServer.class);
    private static final String TEXT = "text/plain; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService threads;
    private final String name;

    private OpsHttpServer(HttpServer server, ExecutorService threads, String name) {
        this.server = server;
        this.threads = threads;
        this.name = name;
    }

    /**
     * What a daemon serves: its readiness, its metrics, optionally a page at {@code /} and its JSON
     * form at {@code /status.json}, and the bearer token {@code /metrics} and those need (null: none;
     * the health probes never need one, they tell nothing but ready or not).
     */
    public record Endpoints(Readiness readiness, PrometheusRegistry registry, Page page, Page statusJson,
                            String token) {
        public Endpoints {
            if (readiness == null || registry == null) {
                throw new IllegalArgumentException("an HTTP server needs a readiness rule and a metrics registry");
            }
        }

        /** Readiness, metrics and a page, open to anyone who can connect. */
        public Endpoints(Readiness readiness, PrometheusRegistry registry, Page page) {
            this(readiness, registry, page, null, null);
        }
    }

    /** A page rendered for each request: HTML. */
    @FunctionalInterface
    public interface Page {
        String render();
    }

    /**
     * Starts serving.
     *
     * @param name      the daemon, for log lines and errors ("namenode localhost:9060")
     * @param host      interface to listen on
     * @param port      port to listen on; 0 picks a free one (see {@link #port()})
     * @throws CreelException (NETWORK) when the port cannot be bound, naming host and port
     */
    public static OpsHttpServer start(String name, String host, int port, Endpoints endpoints) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, name + ": cannot serve HTTP on " + host + ":" + port + ": " + e);
        }
        AtomicInteger n = new AtomicInteger();
        // Two threads: a probe must not wait behind a slow scrape, and nothing here needs more.
        ExecutorService threads = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "creel-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(threads);
        ExpositionFormats formats = ExpositionFormats.init();
        server.createContext("/", exchange -> serve(exchange, name, endpoints, formats));
        server.start();
        OpsHttpServer s = new OpsHttpServer(server, threads, name);
        LOG.info("{}: HTTP on {}:{} (/health, /metrics{}{})", name, host, s.port(),
                endpoints.page() == null ? "" : ", /, /status.json",
                endpoints.token() == null ? "" : "; all but /health need the cluster's HTTP token");
        return s;
    }

    /** The port the server listens on. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The address the server listens on (interface and port). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void serve(HttpExchange ex, String name, Endpoints endpoints, ExpositionFormats formats)
            throws IOException {
        try (ex) {
            String method = ex.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                send(ex, 405, TEXT, method + " is not allowed; use GET\n");
                return;
            }
            String path = ex.getRequestURI().getPath();
            if (endpoints.token() != null && !path.startsWith("/health") && !authorized(ex, endpoints.token())) {
                ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"creel\"");
                send(ex, 401, TEXT, path + ": security is on; send 'Authorization: Bearer TOKEN' with the token "
                        + "`bin/creel admin http-token` prints (Prometheus: authorization.credentials_file)\n");
                return;
            }
            switch (path) {
                case "/health/live" -> send(ex, 200, TEXT, "live\n");
                case "/health", "/health/ready" -> {
                    String why = endpoints.readiness().whyNotReady();
                    send(ex, why == null ? 200 : 503, TEXT, (why == null ? "ready" : why.replace('\n', ' ')) + "\n");
                }
                case "/metrics" -> {
                    ExpositionFormatWriter w = formats.getPrometheusTextFormatWriter();
                    ByteArrayOutputStream body = new ByteArrayOutputStream(8192);
                    w.write(body, endpoints.registry().scrape());
                    send(ex, 200, w.getContentType(), body.toByteArray());
                }
                case "/" -> {
                    if (endpoints.page() == null) {
                        send(ex, 404, TEXT, name + " has no status page; it serves /health and /metrics "
                                + "(the namenode serves the status page)\n");
                    } else {
                        send(ex, 200, "text/html; charset=utf-8", endpoints.page().render());
                    }
                }
                case "/status.json" -> {
                    if (endpoints.statusJson() == null) {
                        send(ex, 404, TEXT, name + " has no status; the namenode serves /status.json\n");
                    } else {
                        send(ex, 200, "application/json", endpoints.statusJson().render());
                    }
                }
                default -> send(ex, 404, TEXT, path + ": not found; " + name + " serves /health/live, "
                        + "/health/ready, /metrics" + (endpoints.page() == null ? "" : ", / and /status.json") + "\n");
            }
        } catch (RuntimeException e) {
            // The exchange may be half written; the client sees the connection end. Say what failed here.
            LOG.warn("{}: HTTP {} {} failed", name, ex.getRequestMethod(), ex.getRequestURI(), e);
        }
    }

    private static boolean authorized(HttpExchange ex, String token) {
        String h = ex.getRequestHeaders().getFirst("Authorization");
        String expected = "Bearer " + token;
        // Constant-time, so the answer's timing does not tell how much of a guess was right.
        return h != null && MessageDigest.isEqual(h.trim().getBytes(StandardCharsets.UTF_8),
                expected.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        send(ex, status, type, body.getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange ex, int status, String type, byte[] body) throws IOException {
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = ex.getRequestMethod().equals("HEAD");
        ex.sendResponseHeaders(status, head ? -1 : body.length);
        if (!head) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Stops serving at once (a probe in flight sees its connection close). */
    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
        LOG.debug("{}: HTTP stopped", name);
    }
}
