package io.creel.storage.rdma.lab;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.creel.rdma.RdmaAvailability;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * Where the lab tests run: the guest that lab/rdma/run-tests.sh boots (or any machine with an RDMA
 * device, given CREEL_LAB_RDMA_ADDR). Outside it they are skipped with a message naming what is
 * missing, except when CREEL_RDMA_REQUIRED=1 (the lab, CI): then a gap fails the test.
 */
public final class LabEnvironment {
    /** The tag of every test that needs a real RDMA device. */
    public static final String TAG = "rdma-lab";

    private static boolean checked;
    private static String missingReason;

    private LabEnvironment() {
    }

    /** What keeps this machine from running the lab tests, or null when nothing does (cached). */
    public static synchronized String missing() {
        if (!checked) {
            checked = true;
            String addr = System.getenv("CREEL_LAB_RDMA_ADDR");
            if (addr == null || addr.isBlank()) {
                missingReason = "CREEL_LAB_RDMA_ADDR is not set: not in the RDMA lab (run lab/rdma/run-tests.sh, or "
                        + "set it to the IP address of an RDMA interface)";
            } else {
                RdmaAvailability availability = RdmaAvailability.detect();
                missingReason = availability.available() ? null : availability.message();
            }
        }
        return missingReason;
    }

    /** Whether a gap must fail the tests instead of skipping them (CREEL_RDMA_REQUIRED=1: the lab, CI). */
    public static boolean required() {
        return "1".equals(System.getenv("CREEL_RDMA_REQUIRED"));
    }

    /** Fails (or skips) unless RDMA is usable here; returns the RDMA address to use. */
    public static InetAddress requireRdma() {
        String missing = missing();
        if (missing != null) {
            if (required()) {
                fail("RDMA is required here (CREEL_RDMA_REQUIRED=1) but " + missing);
            }
            assumeTrue(false, missing);
        }
        String addr = System.getenv("CREEL_LAB_RDMA_ADDR");
        try {
            return InetAddress.getByName(addr);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("CREEL_LAB_RDMA_ADDR=" + addr + " is not an address", e);
        }
    }

    /** The value of a lab variable, or fails naming it (the harness always sets it). */
    public static String variable(String name) {
        String v = System.getenv(name);
        if (v == null || v.isBlank()) {
            fail(name + " is not set (the lab harness sets it)");
        }
        return v;
    }
}
