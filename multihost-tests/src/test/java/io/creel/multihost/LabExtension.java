package io.creel.multihost;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives each test a fresh {@link NetworkLab} and tears it down afterwards, whatever happened:
 *
 * <pre>{@code
 * @RegisterExtension
 * final LabExtension lab = new LabExtension(5);   // 5 host namespaces
 * ...
 * CreelLab cluster = new CreelLab(lab.net(), List.of(lab.net().host(1)), Map.of());
 * }</pre>
 *
 * <p>Before each test it checks that labs can be built here (root, {@code ip}, namespaces, veth,
 * bridge) and otherwise skips the test with a message naming what is missing (or fails it, when
 * {@link #REQUIRED} is set). After a failed test it
 * prints the tail of every lab process's log (and where the full logs are) to the test's output.
 * Logs stay in {@code target/multihost/<TestClass>/<method>/} ({@code <method>-<display name>/} for
 * each invocation of a parameterized test, e.g. {@code ...-AUTH_TLS/}).
 */
public final class LabExtension implements BeforeEachCallback, AfterEachCallback {
    /**
     * System property (or, upper-cased with _ for ., environment variable) that turns the skip into
     * a failure, for CI machines that must run these tests: {@code -Dcreel.multihost.required=true}.
     */
    public static final String REQUIRED = "creel.multihost.required";
    private static volatile String unavailable;
    private static volatile boolean checked;

    private final int hosts;
    private NetworkLab net;

    public LabExtension(int hosts) {
        this.hosts = hosts;
    }

    /** The current test's lab. */
    public NetworkLab net() {
        if (net == null) {
            throw new IllegalStateException("no lab: use the extension through @RegisterExtension");
        }
        return net;
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        if (!checked) {
            synchronized (LabExtension.class) {
                if (!checked) {
                    unavailable = NetworkLab.unavailableReason();
                    checked = true;
                }
            }
        }
        if (unavailable != null && required()) {
            throw new IllegalStateException(REQUIRED + " is set, but multi-host tests cannot run: " + unavailable);
        }
        Assumptions.assumeTrue(unavailable == null, () -> "skipped: " + unavailable);
        String cls = context.getRequiredTestClass().getSimpleName();
        String method = context.getTestMethod().map(m -> m.getName()).orElse("test");
        if (context.getUniqueId().contains("test-template-invocation")) {
            // One directory per invocation of a parameterized scenario, named by its display name (e.g. AUTH_TLS).
            method += "-" + context.getDisplayName().replaceAll("[^A-Za-z0-9_.+-]", "_");
        }
        net = NetworkLab.create(hosts, targetDir().resolve("multihost").resolve(cls).resolve(method));
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (net == null) {
            return;
        }
        try {
            Optional<Throwable> failure = context.getExecutionException();
            if (failure.isPresent()) {
                dumpLogs(context.getDisplayName());
            }
        } finally {
            net.close();
            net = null;
        }
    }

    private void dumpLogs(String test) {
        StringBuilder b = new StringBuilder("\n===== " + test + " failed; lab " + net.id() + " process logs =====\n");
        for (HostProcess p : net.processes()) {
            b.append("----- ").append(p).append(" (").append(p.logFile()).append(", ")
                    .append(p.isAlive() ? "running" : "exited").append("; its first line is the command) -----\n");
            // The command line (with its long class path) stays in the file; the dump shows what happened.
            p.tail(150).lines().filter(l -> !l.startsWith("# ip netns exec")).forEach(l -> b.append(l).append('\n'));
        }
        System.out.println(b);
    }

    private static boolean required() {
        String v = System.getProperty(REQUIRED, System.getenv("CREEL_MULTIHOST_REQUIRED"));
        return v != null && (v.equals("true") || v.equals("1"));
    }

    private static Path targetDir() {
        String basedir = System.getProperty("basedir");
        return basedir != null ? Path.of(basedir, "target") : Path.of("target").toAbsolutePath();
    }
}
