package io.creel.ops.status;

import io.creel.common.BuildInfo;
import io.creel.common.conf.ConfValues;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.FsckReply;
import io.creel.namenode.NamenodeServer;
import io.creel.namenode.service.NamenodeService;
import io.creel.ops.cluster.ClusterView;
import io.creel.ops.metrics.RecentErrors;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/**
 * The namenode's status page: plain server-side HTML and CSS, rendered per request from the
 * namenode's own view (the same STATUS answer {@code creel report} prints), refreshing itself.
 * Element ids ({@code summary}, {@code servers}, {@code classes}, {@code namespace}, {@code fsck},
 * {@code errors}) and {@code data-*} attributes carry the raw figures for tests and scripts.
 */
public final class StatusPage {
    /** Seconds between the page's own refreshes. */
    public static final int REFRESH_SECONDS = 5;
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(ZoneOffset.UTC);

    /** What the page shows: the namenode (null while it starts), the partitions it is one of, its errors. */
    public record Source(NamenodeServer namenode, List<HostPort> partitions, int self, RecentErrors errors) {
    }

    private StatusPage() {
    }

    public static String render(String title, Source source) {
        StringBuilder b = new StringBuilder(16 * 1024);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta http-equiv=\"refresh\" content=\"").append(REFRESH_SECONDS).append("\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>Creel — ").append(Html.esc(title)).append("</title><style>").append(CSS)
                .append("</style></head><body>\n<header><h1>Creel</h1><span class=\"who\">").append(Html.esc(title))
                .append("</span><span class=\"build\">").append(Html.esc(BuildInfo.current().toString()))
                .append("</span><nav><a href=\"/metrics\">metrics</a><a href=\"/health\">health</a></nav>")
                .append("<span class=\"when\">").append(TIME.format(Instant.now()))
                .append(" · refreshes every ").append(REFRESH_SECONDS).append(" s</span></header>\n<main>\n");
        NamenodeServer nn = source == null ? null : source.namenode();
        if (nn == null) {
            b.append("<section id=\"summary\" class=\"card\"><h2>Starting</h2><p>The namenode is restoring its ")
                    .append("namespace or binding its RPC port; this page fills in once it serves.</p></section>");
        } else {
            ClusterView view = ClusterView.of(nn.status());
            summary(b, view, source);
            classes(b, view);
            servers(b, view);
            b.append("<div class=\"row\">");
            namespace(b, nn);
            fsck(b, nn);
            b.append("</div>");
            errors(b, source.errors());
        }
        b.append("</main></body></html>\n");
        return b.toString();
    }

    private static void summary(StringBuilder b, ClusterView view, Source source) {
        Map<String, Integer> states = view.serversByState();
        b.append("<section id=\"summary\" class=\"card\"><h2>Cluster</h2><div class=\"tiles\">");
        tile(b, "nodes", Long.toString(view.nodes()), "namespace nodes");
        tile(b, "servers", Integer.toString(view.servers().size()), "storage servers");
        for (Map.Entry<String, Integer> e : states.entrySet()) {
            tile(b, "servers-" + e.getKey(), Integer.toString(e.getValue()), e.getKey());
        }
        long cap = view.classTotals().stream().mapToLong(ClusterView.ClassTotal::capacityBytes).sum();
        long used = view.classTotals().stream().mapToLong(ClusterView.ClassTotal::usedBytes).sum();
        tile(b, "capacity", size(cap), "capacity");
        tile(b, "used", size(used), "used");
        b.append("</div><p class=\"partitions\">Partitions: ");
        List<HostPort> parts = source.partitions();
        for (int i = 0; i < parts.size(); i++) {
            b.append(i == 0 ? "" : " · ").append(i == source.self() ? "<b>" : "")
                    .append(Html.esc(parts.get(i))).append(i == source.self() ? "</b> (this namenode)" : "");
        }
        b.append(parts.size() > 1 ? " — each partition holds its own part of the namespace; this page shows this one's"
                : "").append("</p></section>\n");
    }

    private static void tile(StringBuilder b, String id, String value, String label) {
        b.append("<div class=\"tile\" data-figure=\"").append(Html.esc(id)).append("\"><div class=\"v\">")
                .append(Html.esc(value)).append("</div><div class=\"l\">").append(Html.esc(label)).append("</div></div>");
    }

    private static void classes(StringBuilder b, ClusterView view) {
        List<String> spilling = view.spilling();
        b.append("<section id=\"classes\" class=\"card\"><h2>Storage classes</h2>")
                .append("<p class=\"hint\">In allocation order: a full class spills new blocks into the next.</p>")
                .append("<table><thead><tr><th>class</th><th>servers</th><th class=\"bar\">space</th>")
                .append("<th>capacity</th><th>used</th><th>free</th><th>pending</th></tr></thead><tbody>");
        for (ClusterView.ClassTotal c : view.classTotals()) {
            b.append("<tr data-class=\"").append(Html.esc(c.storageClass())).append("\"><td>")
                    .append(Html.esc(c.storageClass()));
            if (spilling.contains(c.storageClass())) {
                b.append(" <span class=\"badge spill\">full: spilling into lower classes</span>");
            }
            b.append("</td><td class=\"n\">").append(c.servers()).append("</td><td>");
            bar(b, c.capacityBytes(), c.usedBytes(), c.pendingBytes());
            b.append("</td>");
            figures(b, c.capacityBytes(), c.usedBytes(), c.freeBytes(), c.pendingBytes());
            b.append("</tr>");
        }
        b.append("</tbody></table></section>\n");
    }

    private static void servers(StringBuilder b, ClusterView view) {
        b.append("<section id=\"servers\" class=\"card\"><h2>Storage servers</h2>");
        if (view.servers().isEmpty()) {
            b.append("<p>No storage servers registered.</p></section>\n");
            return;
        }
        b.append("<table><thead><tr><th>server</th><th>tier</th><th>class</th><th>state</th><th class=\"bar\">space")
                .append("</th><th>capacity</th><th>used</th><th>free</th><th>pending</th><th>heartbeat</th></tr>")
                .append("</thead><tbody>");
        for (ClusterView.Server s : view.servers()) {
            b.append("<tr data-server=\"").append(Html.esc(s.address())).append("\" data-state=\"")
                    .append(Html.esc(s.state())).append("\"><td class=\"mono\">").append(Html.esc(s.address()))
                    .append("</td><td>").append(Html.esc(s.tier())).append("</td><td>")
                    .append(Html.esc(s.storageClass())).append("</td><td><span class=\"badge ").append(Html.esc(s.state()))
                    .append("\">").append(Html.esc(s.state())).append("</span></td><td>");
            bar(b, s.capacityBytes(), s.usedBytes(), s.pendingBytes());
            b.append("</td>");
            figures(b, s.capacityBytes(), s.usedBytes(), s.freeBytes(), s.pendingBytes());
            b.append("<td class=\"n\">").append(s.heartbeatAgeMillis()).append(" ms ago</td></tr>");
        }
        b.append("</tbody></table></section>\n");
    }

    private static void namespace(StringBuilder b, NamenodeServer nn) {
        long[] counts = nn.nodeCountsByType();
        b.append("<section id=\"namespace\" class=\"card half\"><h2>Namespace</h2><table><tbody>");
        for (NodeType t : NodeType.values()) {
            b.append("<tr data-type=\"").append(t.displayName()).append("\"><td>").append(t.displayName())
                    .append("</td><td class=\"n\">").append(counts[t.ordinal()]).append("</td></tr>");
        }
        b.append("</tbody></table></section>");
    }

    private static void fsck(StringBuilder b, NamenodeServer nn) {
        b.append("<section id=\"fsck\" class=\"card half\"><h2>Lost blocks (last fsck)</h2>");
        var rp = nn.replication();
        // Live, unlike the fsck below: the replica repair walks the namespace whenever a server dies.
        b.append("<p data-replication=\"").append(rp.underReplicated()).append("\">Replication: ")
                .append(rp.underReplicated()).append(" blocks short of copies, ").append(rp.lost())
                .append(" without a live copy; ").append(rp.repairedBlocks()).append(" repaired since start")
                .append(rp.failedRepairs() == 0 ? "" : ", " + rp.failedRepairs() + " repairs failed (last: "
                        + Html.esc(rp.lastProblem()) + ")").append(".</p>");
        var last = nn.lastFsck();
        if (last.isEmpty()) {
            b.append("<p data-fsck=\"none\">No fsck since this namenode started; run <code>creel admin fsck /</code>.")
                    .append("</p></section>");
            return;
        }
        NamenodeService.LastFsck f = last.get();
        FsckReply r = f.reply();
        long lost = r.damaged().stream().mapToLong(FsckReply.Damaged::lostBlocks).sum();
        b.append("<p data-fsck=\"").append(r.damaged().size()).append("\">fsck of <code>").append(Html.esc(f.path()))
                .append("</code> at ").append(TIME.format(Instant.ofEpochMilli(f.atMillis()))).append(": ")
                .append(r.damaged().size()).append(" of ").append(r.checked()).append(" nodes with data have ")
                .append(lost).append(" blocks on dead servers.</p>");
        if (!r.damaged().isEmpty()) {
            b.append("<table><thead><tr><th>path</th><th>lost</th><th>on</th></tr></thead><tbody>");
            r.damaged().stream().limit(20).forEach(d -> b.append("<tr><td class=\"mono\">").append(Html.esc(d.path()))
                    .append("</td><td class=\"n\">").append(d.lostBlocks()).append(" of ").append(d.totalBlocks())
                    .append("</td><td>").append(Html.esc(String.join(", ", d.servers()))).append("</td></tr>"));
            b.append("</tbody></table>");
        }
        b.append("</section>");
    }

    private static void errors(StringBuilder b, RecentErrors errors) {
        b.append("<section id=\"errors\" class=\"card\"><h2>Recent errors</h2>");
        List<RecentErrors.Entry> list = errors == null ? List.of() : errors.newestFirst();
        if (list.isEmpty()) {
            b.append("<p data-errors=\"0\">No request has failed since this process started.</p></section>\n");
            return;
        }
        b.append("<p data-errors=\"").append(errors.total()).append("\">").append(errors.total())
                .append(" requests failed since this process started; the last ").append(list.size()).append(":</p>")
                .append("<table><thead><tr><th>when</th><th>service</th><th>request</th><th>code</th><th>message</th>")
                .append("</tr></thead><tbody>");
        for (RecentErrors.Entry e : list) {
            b.append("<tr><td class=\"nowrap\">").append(TIME.format(e.at())).append("</td><td>")
                    .append(Html.esc(e.service()))
                    .append("</td><td>").append(e.op()).append("</td><td><span class=\"badge code\">").append(e.code())
                    .append("</span></td><td class=\"msg\">").append(Html.esc(e.message())).append("</td></tr>");
        }
        b.append("</tbody></table></section>\n");
    }

    /** A bar of a capacity: used, then pending (reuse delay), the rest free. */
    private static void bar(StringBuilder b, long capacity, long used, long pending) {
        double u = capacity == 0 ? 0 : 100.0 * used / capacity;
        double p = capacity == 0 ? 0 : 100.0 * pending / capacity;
        b.append(String.format(java.util.Locale.ROOT, "<div class=\"meter\" title=\"%.1f%% used, %.1f%% pending\">"
                + "<div class=\"used\" style=\"width:%.2f%%\"></div><div class=\"pending\" style=\"width:%.2f%%\"></div>"
                + "</div><span class=\"pct\">%.0f%%</span>", u, p, u, p, u));
    }

    private static void figures(StringBuilder b, long capacity, long used, long free, long pending) {
        b.append("<td class=\"n\" data-bytes=\"").append(capacity).append("\">").append(size(capacity))
                .append("</td><td class=\"n\" data-bytes=\"").append(used).append("\">").append(size(used))
                .append("</td><td class=\"n\" data-bytes=\"").append(free).append("\">").append(size(free))
                .append("</td><td class=\"n\" data-bytes=\"").append(pending).append("\">").append(size(pending))
                .append("</td>");
    }

    private static String size(long bytes) {
        return ConfValues.formatSize(bytes);
    }

    private static final String CSS = """
            *{box-sizing:border-box}
            body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
              background:#f3f5f8;color:#1d2733}
            header{display:flex;align-items:baseline;gap:16px;padding:12px 24px;background:#17324d;color:#fff}
            header h1{margin:0;font-size:20px;letter-spacing:.5px}
            header .who{font-weight:600}
            header .build{font-size:12px;opacity:.8}
            header nav a{color:#cfe0f2;font-size:12px;margin-right:12px;text-decoration:none}
            header nav a:hover{text-decoration:underline}
            header .when{margin-left:auto;opacity:.8;font-size:12px}
            main{max-width:1280px;margin:0 auto;padding:16px 24px}
            .card{background:#fff;border:1px solid #dde3ea;border-radius:8px;padding:12px 16px;margin-bottom:16px}
            .card h2{margin:0 0 8px;font-size:15px;color:#17324d}
            .row{display:flex;gap:16px;flex-wrap:wrap}.half{flex:1 1 380px}
            .tiles{display:flex;flex-wrap:wrap;gap:10px}
            .tile{min-width:110px;padding:8px 12px;border-radius:6px;background:#f0f4f9}
            .tile .v{font-size:20px;font-weight:600}.tile .l{font-size:12px;color:#5b6b7c}
            .tile[data-figure=servers-dead] .v{color:#b3261e}.tile[data-figure=servers-draining] .v{color:#a15c00}
            .partitions,.hint{color:#5b6b7c;font-size:12px;margin:8px 0 0}
            .hint{margin:0 0 6px}
            table{width:100%;border-collapse:collapse}
            th{text-align:left;font-size:12px;color:#5b6b7c;font-weight:600;border-bottom:1px solid #dde3ea;padding:4px 8px}
            td{padding:5px 8px;border-bottom:1px solid #eef1f5;vertical-align:middle}
            td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
            .mono,code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12px}
            .nowrap{white-space:nowrap}.msg{font-size:12px;word-break:break-word}
            th.bar{width:26%}
            .meter{display:inline-flex;width:calc(100% - 44px);height:12px;background:#dcefe0;border-radius:6px;
              overflow:hidden;vertical-align:middle}
            .meter .used{background:#2f6fb3}.meter .pending{background:#e0a03a}
            .pct{display:inline-block;width:40px;text-align:right;font-size:12px;color:#5b6b7c}
            .badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:12px;font-weight:600;background:#e6ebf1}
            .badge.live{background:#d8f0de;color:#1e6b34}.badge.dead{background:#f8d7d5;color:#b3261e}
            .badge.draining{background:#fdebd0;color:#a15c00}.badge.decommissioned{background:#e6ebf1;color:#5b6b7c}
            .badge.spill{background:#fdebd0;color:#a15c00;font-weight:500}
            .badge.code{background:#f8d7d5;color:#b3261e}
            """;
}
