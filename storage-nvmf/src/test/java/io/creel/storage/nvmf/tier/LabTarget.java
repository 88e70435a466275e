package io.creel.storage.nvmf.tier;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.creel.storage.nvmf.target.Fabric;
import io.creel.rdma.RdmaAvailability;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The real NVMe-oF target the lab tests run against (tag {@code nvmf-lab}), named by system
 * properties or the environment, never guessed (the tests write its namespace):
 *
 * <ul>
 *   <li>{@code creel.test.nvmf.target} / {@code CREEL_TEST_NVMF_TARGET}: host:port of its NVMe/TCP port
 *       (the lab guest's forwarded port from the host, {@code 10.0.2.15:4420} inside the guest);</li>
 *   <li>{@code creel.test.nvmf.rdma.target} / {@code CREEL_TEST_NVMF_RDMA_TARGET}: host:port of its
 *       NVMe/RDMA port, same host (inside the guest {@code 10.0.2.15:4421});</li>
 *   <li>{@code creel.test.nvmf.nqn} / {@code CREEL_TEST_NVMF_NQN}: the subsystem (default the lab's);</li>
 *   <li>{@code creel.test.nvmf.required} / {@code CREEL_TEST_NVMF_REQUIRED} and
 *       {@code creel.test.nvmf.rdma.required} / {@code CREEL_TEST_NVMF_RDMA_REQUIRED}: {@code true}
 *       turns a skip for want of the target (or of RDMA) into a failure.</li>
 * </ul>
 *
 * Namespace 1 must keep data (the lab's {@code --ns ram}); the tests use its first 192 MiB.
 */
final class LabTarget {
    static final String LAB_NQN = "nqn.2024-01.io.creel:lab";
    /** Bytes of the namespace the tests' volumes use. */
    static final String VOLUME_SIZE = "192m";

    private LabTarget() {
    }

    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    private static boolean required(String property, String env) {
        return Boolean.parseBoolean(setting(property, env, "false"));
    }

    private static void unusable(String why, boolean required) {
        if (required) {
            fail(why + " (required in this run)");
        }
        assumeTrue(false, why);
    }

    /**
     * Whether this run covers NVMe/RDMA: a target's RDMA port is named, or RDMA is required. The lab's
     * host-side run names only the NVMe/TCP port (this machine has no RDMA; the guest run covers it),
     * and there the RDMA cases are not generated at all rather than skipped, so that the lab can take
     * any skip as a failure (lab/nvmf/run-tests.sh).
     */
    static boolean rdmaCovered() {
        return !setting("creel.test.nvmf.rdma.target", "CREEL_TEST_NVMF_RDMA_TARGET", "").isEmpty()
                || required("creel.test.nvmf.rdma.required", "CREEL_TEST_NVMF_RDMA_REQUIRED");
    }

    /**
     * The test arguments (server fabric, client fabric) of {@code pairs} ("tcp, rdma") that this run
     * covers: all of them, or without those involving RDMA when it does not cover RDMA.
     */
    static Stream<Arguments> fabricPairs(String... pairs) {
        boolean rdma = rdmaCovered();
        return Arrays.stream(pairs).map(p -> p.split(",\\s*"))
                .filter(p -> rdma || (p[0].equals("tcp") && p[1].equals("tcp")))
                .map(p -> Arguments.of(p[0], p[1]));
    }

    /** host:port of the target's port for {@code fabric}; skips (or fails) the test when there is none. */
    static String[] endpoint(Fabric fabric) {
        boolean tcp = fabric == Fabric.TCP;
        String address = tcp ? setting("creel.test.nvmf.target", "CREEL_TEST_NVMF_TARGET", "")
                : setting("creel.test.nvmf.rdma.target", "CREEL_TEST_NVMF_RDMA_TARGET", "");
        boolean needed = required("creel.test.nvmf.required", "CREEL_TEST_NVMF_REQUIRED")
                && (tcp || required("creel.test.nvmf.rdma.required", "CREEL_TEST_NVMF_RDMA_REQUIRED"));
        if (address.isEmpty()) {
            unusable("no NVMe/" + fabric.text().toUpperCase() + " target named; set creel.test.nvmf."
                    + (tcp ? "" : "rdma.") + "target (host:port), e.g. to the lab guest's (lab/README.md)", needed);
        }
        if (!tcp) {
            RdmaAvailability rdma = RdmaAvailability.detect();
            if (!rdma.available()) {
                unusable("no RDMA here: " + rdma.message(), needed);
            }
        }
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            fail("creel.test.nvmf." + (tcp ? "" : "rdma.") + "target must be host:port, not " + address);
        }
        return new String[] {address.substring(0, colon), address.substring(colon + 1)};
    }

    /**
     * Settings of an nvmf server on the lab target, connecting over {@code serverFabric} and telling
     * clients every port the target has been named with.
     */
    static Map<String, String> settings(Fabric serverFabric, Fabric clientFabric) {
        String[] server = endpoint(serverFabric);
        String[] client = clientFabric == serverFabric ? server : endpoint(clientFabric);
        if (!server[0].equals(client[0])) {
            fail("the NVMe/TCP and NVMe/RDMA targets must be on one host: " + server[0] + " and " + client[0]);
        }
        Map<String, String> m = new LinkedHashMap<>();
        m.put("creel.storage.nvmf.address", server[0]);
        m.put("creel.storage.nvmf.transport", serverFabric.text());
        m.put("creel.storage.nvmf.nqn", setting("creel.test.nvmf.nqn", "CREEL_TEST_NVMF_NQN", LAB_NQN));
        m.put("creel.storage.nvmf.size", VOLUME_SIZE);
        m.put(portKey(serverFabric), server[1]);
        if (clientFabric != serverFabric) {
            m.put(portKey(clientFabric), client[1]);
        } else if (serverFabric == Fabric.RDMA) {
            m.put(portKey(Fabric.TCP), "0"); // only RDMA offered: clients must take it
        }
        // An emulated guest is slow; the defaults of a real deployment apply.
        m.put("creel.storage.nvmf.command.timeout", "10s");
        m.put("creel.storage.nvmf.connect.timeout", "10s");
        m.put("creel.client.nvmf.command.timeout", "10s");
        m.put("creel.client.nvmf.connect.timeout", "10s");
        return m;
    }

    private static String portKey(Fabric f) {
        return f == Fabric.TCP ? "creel.storage.nvmf.tcp.port" : "creel.storage.nvmf.rdma.port";
    }
}
