package io.creel.ops.status;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.BuildInfo;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Opcode;
import io.creel.minicluster.MiniCluster;
import io.creel.ops.metrics.RecentErrors;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The page as HTML, without a browser: what it says while starting, and that it escapes what users named. */
class StatusPageTest {
    @Test
    void whileTheNamenodeStartsThePageSaysSoAndStillRefreshes() {
        String html = StatusPage.render("namenode a:1", null);
        assertTrue(html.contains("<h2>Starting</h2>"), html);
        assertTrue(html.contains("<meta http-equiv=\"refresh\" content=\"5\">"), html);
    }

    @Test
    void theHeaderNamesTheBuildTheNamenodeRuns() {
        String html = StatusPage.render("namenode a:1", null);
        assertTrue(html.contains("<span class=\"build\">" + BuildInfo.current().version() + " (commit "
                + BuildInfo.current().commit() + ")</span>"), html);
    }

    @Test
    void namesAndMessagesFromUsersAreEscaped() {
        RecentErrors errors = new RecentErrorsFeeder().with("/<script>alert(1)</script>: no such node");
        try (MiniCluster cluster = MiniCluster.builder().temporaryDirectories().dram(4 << 20).disk(0).servers(1, 0)
                .start()) {
            String html = StatusPage.render("namenode <b>x</b>", new StatusPage.Source(cluster.namenode(),
                    List.of(new HostPort("127.0.0.1", 1)), 0, errors));
            assertFalse(html.contains("<script>"), html);
            assertTrue(html.contains("/&lt;script&gt;alert(1)&lt;/script&gt;: no such node"), html);
            assertTrue(html.contains("Creel — namenode &lt;b&gt;x&lt;/b&gt;"), html);
            assertTrue(html.contains("No fsck since this namenode started"), html);
            assertTrue(html.contains("data-type=\"" + NodeType.BAG.displayName() + "\""), html);
        }
    }

    @Test
    void aClusterWithoutServersSaysSo() {
        try (MiniCluster cluster = MiniCluster.builder().temporaryDirectories().servers(0, 0).start()) {
            String html = StatusPage.render("namenode", new StatusPage.Source(cluster.namenode(),
                    List.of(new HostPort("127.0.0.1", 1), new HostPort("127.0.0.1", 2)), 1, new RecentErrors(1)));
            assertTrue(html.contains("No storage servers registered."), html);
            assertTrue(html.contains("No request has failed since this process started."), html);
            assertTrue(html.contains("<b>127.0.0.1:2</b> (this namenode)"), html);
        }
    }

    /** Fills a ring the way the RPC metrics do. */
    private static final class RecentErrorsFeeder {
        RecentErrors with(String message) {
            io.prometheus.metrics.model.registry.PrometheusRegistry registry =
                    new io.prometheus.metrics.model.registry.PrometheusRegistry();
            io.creel.ops.metrics.RpcMetrics m = new io.creel.ops.metrics.RpcMetrics(registry);
            m.apply("namenode").answered(Opcode.LOOKUP, new CreelException(ErrorCode.NOT_FOUND, message), 1000);
            return m.recentErrors();
        }
    }
}
