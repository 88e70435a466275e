package io.creel.ops.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.ops.health.Readiness;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpsHttpServerTest {
    private final AtomicReference<String> notReady = new AtomicReference<>("namenode is starting");
    private final PrometheusRegistry registry = new PrometheusRegistry();
    private OpsHttpServer server;

    @BeforeEach
    void start() {
        server = OpsHttpServer.start("test daemon", "127.0.0.1", 0,
                new OpsHttpServer.Endpoints(notReady::get, registry, null));
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void liveAnswersWhileTheProcessRunsEvenBeforeItIsReady() {
        HttpResponse<String> r = Http.get(server.port(), "/health/live");
        assertEquals(200, r.statusCode());
        assertEquals("live\n", r.body());
    }

    @Test
    void readyIs503WithTheReasonUntilTheDaemonServesThen200() {
        HttpResponse<String> before = Http.get(server.port(), "/health/ready");
        assertEquals(503, before.statusCode());
        assertEquals("namenode is starting\n", before.body());
        notReady.set(Readiness.READY);
        HttpResponse<String> after = Http.get(server.port(), "/health/ready");
        assertEquals(200, after.statusCode());
        assertEquals("ready\n", after.body());
    }

    @Test
    void healthIsTheReadinessProbe() {
        assertEquals(503, Http.get(server.port(), "/health").statusCode());
        notReady.set(Readiness.READY);
        assertEquals("ready\n", Http.get(server.port(), "/health").body());
    }

    @Test
    void aMultiLineReasonIsSentAsOneLine() {
        notReady.set("first\nsecond");
        assertEquals("first second\n", Http.get(server.port(), "/health/ready").body());
    }

    @Test
    void metricsAreThePrometheusTextFormatOfTheRegistry() {
        Counter c = Counter.builder().name("creel_test_things_total").help("things seen").labelNames("kind")
                .register(registry);
        c.labelValues("red").inc(3);
        HttpResponse<String> r = Http.get(server.port(), "/metrics");
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"),
                r.headers().toString());
        assertTrue(r.body().contains("# TYPE creel_test_things_total counter"), r.body());
        assertTrue(r.body().contains("creel_test_things_total{kind=\"red\"} 3.0"), r.body());
    }

    @Test
    void aDaemonWithoutAPageAnswers404AtTheRootSayingWhereThePageIs() {
        HttpResponse<String> r = Http.get(server.port(), "/");
        assertEquals(404, r.statusCode());
        assertTrue(r.body().contains("the namenode serves the status page"), r.body());
    }

    @Test
    void aDaemonWithAPageServesItAsHtml() {
        try (OpsHttpServer withPage = OpsHttpServer.start("namenode", "127.0.0.1", 0,
                new OpsHttpServer.Endpoints(() -> Readiness.READY, registry, () -> "<p>hello</p>"))) {
            HttpResponse<String> r = Http.get(withPage.port(), "/");
            assertEquals(200, r.statusCode());
            assertEquals("text/html; charset=utf-8", r.headers().firstValue("Content-Type").orElse(""));
            assertEquals("<p>hello</p>", r.body());
        }
    }

    @Test
    void unknownPathsAre404NamingWhatIsServed() {
        HttpResponse<String> r = Http.get(server.port(), "/metrics/extra");
        assertEquals(404, r.statusCode());
        assertTrue(r.body().startsWith("/metrics/extra: not found; test daemon serves /health/live"), r.body());
    }

    @Test
    void onlyGetAndHeadAreAllowed() {
        HttpResponse<String> post = Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/health")).POST(HttpRequest.BodyPublishers.ofString("x")), "POST /health");
        assertEquals(405, post.statusCode());
        assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(""));
        HttpResponse<String> head = Http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/health/live")).method("HEAD", HttpRequest.BodyPublishers.noBody()), "HEAD /health/live");
        assertEquals(200, head.statusCode());
        assertEquals("", head.body());
    }

    @Test
    void aPortInUseFailsNamingTheDaemonAndTheAddress() {
        CreelException e = assertThrows(CreelException.class, () -> OpsHttpServer.start("storage server x",
                "127.0.0.1", server.port(), new OpsHttpServer.Endpoints(() -> Readiness.READY, registry, null)));
        assertTrue(e.getMessage().contains("storage server x: cannot serve HTTP on 127.0.0.1:" + server.port()),
                e.getMessage());
    }

    @Test
    void endpointsNeedReadinessAndRegistry() {
        assertThrows(IllegalArgumentException.class, () -> new OpsHttpServer.Endpoints(null, registry, null));
        assertThrows(IllegalArgumentException.class, () -> new OpsHttpServer.Endpoints(() -> null, null, null));
    }
}
