package io.creel.ops.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.cli.ReportCommand;
import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.namespace.NodeType;
import io.creel.common.net.HostPort;
import io.creel.minicluster.MiniCluster;
import io.creel.ops.DaemonHttp;
import io.creel.storage.runtime.StorageServerRuntime;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import picocli.CommandLine;

/**
 * The status page in a real browser (headless Chromium from Debian's packages, driven through
 * Debian's chromedriver), loaded from a running cluster with a dead server and lost blocks, and
 * checked against what {@code creel report} prints for the same cluster. Saves a screenshot,
 * {@code target/status-page.png}, the module README shows (ops/docs/status-page.png).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StatusPageBrowserTest {
    private static final long MIB = 1 << 20;
    private static final Path CHROMIUM = Path.of(System.getProperty("creel.test.chromium", "/usr/bin/chromium"));
    private static final Path CHROMEDRIVER = Path.of(System.getProperty("creel.test.chromedriver",
            "/usr/bin/chromedriver"));

    @TempDir
    Path profile;

    @Test
    void thePageShowsWhatCreelReportPrintsAndRefreshesItself() throws Exception {
        boolean installed = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        String missing = "headless Chromium is not installed (" + CHROMIUM + ", " + CHROMEDRIVER + "); install it with: "
                + "apt-get install -y chromium chromium-driver";
        // CI sets CREEL_BROWSER_REQUIRED=1: there a missing browser is a failure, not a skip.
        assertTrue(installed || !"1".equals(System.getenv("CREEL_BROWSER_REQUIRED")), missing);
        Assumptions.assumeTrue(installed, missing + " (the status page's browser test is skipped)");
        try (DaemonHttp http = DaemonHttp.localCluster("127.0.0.1", 0);
             MiniCluster cluster = MiniCluster.builder().temporaryDirectories().servers(2, 1).dram(16 * MIB)
                     .disk(64 * MIB).set("creel.storage.region.size", "4m").set("creel.namenode.server.timeout", "1s")
                     .set("creel.storage.heartbeat.interval", "100ms").set("creel.client.request.timeout", "5s")
                     .set("creel.namenode.reuse.delay", "0ms")
                     .set("creel.client.connect.timeout", "2s").start();
             CreelClient client = CreelClient.connect(cluster.clientConf())) {
            List<HostPort> addresses = cluster.clientConf().get(ConfKeys.NAMENODE_ADDRESS);
            http.clusterServing(cluster.namenodes(), addresses, cluster.storageServers());

            client.create("/jobs", NodeType.DIRECTORY).join();
            try (OutputStream out = client.create("/jobs/spread", NodeType.FILE).join().outputStream()) {
                out.write(new byte[(int) (6 * MIB)]); // blocks alternate between the two DRAM servers
            }
            client.create("/cache", NodeType.TABLE).join();
            for (String k : List.of("alice", "bob", "carol")) {
                client.putValue("/cache", k, ByteBuffer.wrap(k.getBytes(StandardCharsets.UTF_8))).join();
            }
            // A lookup of a missing path is an answer, not an error: the page leaves it out.
            assertThrows(CompletionException.class, () -> client.lookup("/jobs/absent").join());
            // Moving a node that is not there is a failed request: the page lists it.
            assertThrows(CompletionException.class, () -> client.move("/jobs/missing", "/jobs/moved").join());
            StorageServerRuntime victim = cluster.storageServers().get(1);
            String victimAddress = victim.info().address();
            victim.close();
            waitFor(() -> client.status().join().get(0).servers().stream()
                    .anyMatch(s -> s.server().address().equals(victimAddress) && s.state().equals("dead")),
                    "the namenode to declare " + victimAddress + " dead");
            assertEquals(1, client.fsck("/").join().damaged().size());
            // Directory records on the dead server move to a live one now: the sizes report and the page
            // print change when they have, so both are taken after (and, reuse delay 0, the old block is free).
            waitFor(() -> client.fsck("/").join().records().stream()
                    .noneMatch(io.creel.common.protocol.FsckReply.Records::stuck),
                    "the directory records on " + victimAddress + " to move");

            StringWriter reportText = new StringWriter();
            int rc = new CommandLine(new ReportCommand()).setOut(new PrintWriter(reportText))
                    .execute("--conf", "creel.namenode.address=" + cluster.address().toUri());
            String report = reportText.toString();
            assertEquals(ReportCommand.UNHEALTHY, rc, report); // a dead server

            ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                    .usingAnyFreePort().build();
            ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM.toFile()).addArguments("--headless",
                    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1366,1400", "--user-data-dir=" + profile);
            ChromeDriver browser = new ChromeDriver(service, options);
            try {
                browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
                browser.get("http://127.0.0.1:" + http.port() + "/");
                assertEquals("Creel — local cluster", browser.getTitle());

                // Every server as report prints it: address, tier, class, state and the four sizes.
                List<WebElement> rows = browser.findElements(By.cssSelector("#servers tbody tr"));
                assertEquals(3, rows.size(), browser.getPageSource());
                for (WebElement row : rows) {
                    List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
                    String line = Pattern.quote(cells.get(0)) + "\\s+" + Pattern.quote(cells.get(1)) + "\\s+"
                            + Pattern.quote(cells.get(2)) + "\\s+" + Pattern.quote(cells.get(3)) + "\\s+"
                            + cells.subList(5, 9).stream().map(Pattern::quote).collect(Collectors.joining("\\s+"));
                    assertTrue(Pattern.compile("(?m)^\\s*" + line + "\\s*$").matcher(report).find(),
                            "the page's row " + cells + " is a line of creel report:\n" + report);
                }
                WebElement dead = browser.findElement(By.cssSelector("#servers tr[data-server='" + victimAddress + "']"));
                assertEquals("dead", dead.getAttribute("data-state"));

                // Every class as report totals it.
                List<WebElement> classes = browser.findElements(By.cssSelector("#classes tbody tr"));
                assertEquals(2, classes.size());
                for (WebElement row : classes) {
                    List<String> cells = row.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
                    String cls = row.getAttribute("data-class");
                    String line = Pattern.quote(cls) + "\\s+" + cells.subList(3, 7).stream().map(Pattern::quote)
                            .collect(Collectors.joining("\\s+"));
                    assertTrue(Pattern.compile("(?m)^\\s*" + line + "\\s*$").matcher(report).find(),
                            "the page's class " + cells + " is a line of creel report:\n" + report);
                }

                // The namespace: report's node count, split by type on the page.
                Matcher nodes = Pattern.compile(": (\\d+) nodes, storage classes").matcher(report);
                assertTrue(nodes.find(), report);
                assertEquals(nodes.group(1), browser.findElement(By.cssSelector("[data-figure=nodes] .v")).getText());
                assertEquals("1", typeCount(browser, "File"));
                assertEquals("3", typeCount(browser, "KeyValue"));
                assertEquals("1", typeCount(browser, "Table"));
                assertEquals("2", typeCount(browser, "Directory"));
                assertEquals("1", browser.findElement(By.cssSelector("[data-figure=servers-dead] .v")).getText());

                // Lost blocks from the fsck, as report's "lost data" names them.
                WebElement fsck = browser.findElement(By.id("fsck"));
                assertEquals("1", fsck.findElement(By.cssSelector("[data-fsck]")).getAttribute("data-fsck"));
                assertTrue(fsck.getText().contains("/jobs/spread"), fsck.getText());
                Matcher lost = Pattern.compile("lost data: (\\d+) of (\\d+) nodes with data").matcher(report);
                assertTrue(lost.find() && report.contains("/jobs/spread: "), report);
                assertTrue(fsck.getText().contains(": " + lost.group(1) + " of " + lost.group(2) + " nodes with data"),
                        fsck.getText() + "\n" + report);

                WebElement errors = browser.findElement(By.id("errors"));
                assertTrue(errors.getText().contains("NOT_FOUND") && errors.getText().contains("/jobs/missing"),
                        errors.getText());
                assertFalse(errors.getText().contains("/jobs/absent"), errors.getText());

                assertEquals("http://127.0.0.1:" + http.port() + "/metrics",
                        browser.findElement(By.linkText("metrics")).getAttribute("href"));

                // Readable on a laptop: nothing wider than a 1366-pixel window.
                long overflow = (Long) ((JavascriptExecutor) browser).executeScript(
                        "return document.documentElement.scrollWidth - window.innerWidth;");
                assertTrue(overflow <= 0, "the page is " + overflow + " px wider than the window");

                Path shot = browser.getScreenshotAs(OutputType.FILE).toPath();
                Files.copy(shot, Path.of("target", "status-page.png"), StandardCopyOption.REPLACE_EXISTING);

                // It refreshes itself: the page's clock moves without the test reloading it.
                String before = browser.findElement(By.cssSelector("header .when")).getText();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(StatusPage.REFRESH_SECONDS * 4L);
                String after = before;
                while (after.equals(before) && System.nanoTime() < deadline) {
                    Thread.sleep(250);
                    try {
                        after = browser.findElement(By.cssSelector("header .when")).getText();
                    } catch (org.openqa.selenium.WebDriverException midReload) {
                        // the old document went away under the lookup: look again in the new one
                    }
                }
                assertFalse(after.equals(before), "the page did not refresh itself within "
                        + StatusPage.REFRESH_SECONDS * 4 + " s: " + before);
            } finally {
                browser.quit();
            }
        }
    }

    private static String typeCount(ChromeDriver browser, String type) {
        return browser.findElement(By.cssSelector("#namespace tr[data-type=" + type + "] td.n")).getText();
    }

    private static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after 30 s waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
