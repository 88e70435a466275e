package io.creel.storage.nvmf.tcp;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * The NVMe/TCP target the real-target tests run against, from system properties or environment:
 * {@code creel.test.nvmf.target} / {@code CREEL_TEST_NVMF_TARGET} (host:port, e.g. the lab guest's
 * forwarded port) and {@code creel.test.nvmf.nqn} / {@code CREEL_TEST_NVMF_NQN} (default the lab's
 * {@code nqn.2024-01.io.creel:lab}). There is no default address: these tests write to the target's
 * namespace, so they never pick up a target that merely happens to listen on a familiar port. When no
 * target is named, or nothing answers an ICReq there, the tests are skipped with a message saying so,
 * unless
 * {@code creel.test.nvmf.required} / {@code CREEL_TEST_NVMF_REQUIRED} is {@code true} (CI), which makes
 * that a failure.
 */
final class RealTarget {
    static final String DEFAULT_NQN = "nqn.2024-01.io.creel:lab";

    private RealTarget() {
    }

    /** The configured target's endpoint, or {@code null} when none is named. */
    static NvmeTcpEndpoint endpoint() {
        String address = setting("creel.test.nvmf.target", "CREEL_TEST_NVMF_TARGET", "");
        if (address.isEmpty()) {
            return null;
        }
        String nqn = setting("creel.test.nvmf.nqn", "CREEL_TEST_NVMF_NQN", DEFAULT_NQN);
        return NvmeTcpEndpoint.parse(address, nqn);
    }

    /** Why the target cannot be used (nothing answers an ICReq there), or null when it answers. */
    static String unreachable(NvmeTcpEndpoint endpoint) {
        if (endpoint == null) {
            return "no NVMe/TCP target named; set creel.test.nvmf.target (host:port, and creel.test.nvmf.nqn), "
                    + "e.g. to the lab guest's forwarded port (lab/README.md)";
        }
        String problem = probe(endpoint);
        return problem == null ? null : "no NVMe/TCP target at " + endpoint.host() + ":" + endpoint.port() + " ("
                + problem + "); set creel.test.nvmf.target (and creel.test.nvmf.nqn), e.g. to the lab guest's "
                + "forwarded port";
    }

    /** Skips the calling test for {@code why}, or fails it when a target is required. */
    static void unusable(String why) {
        if (Boolean.parseBoolean(setting("creel.test.nvmf.required", "CREEL_TEST_NVMF_REQUIRED", "false"))) {
            fail(why + " [creel.test.nvmf.required=true]");
        }
        assumeTrue(false, why);
    }

    private static String setting(String property, String env, String fallback) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            v = System.getenv(env);
        }
        return v == null || v.isBlank() ? fallback : v.trim();
    }

    /** Sends an ICReq and waits 3 s for 128 bytes of ICResp; null when it came, else what went wrong. */
    private static String probe(NvmeTcpEndpoint e) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(e.host(), e.port()), 3000);
            s.setSoTimeout(3000);
            byte[] icreq = new byte[128];
            icreq[2] = (byte) 128;
            icreq[4] = (byte) 128;
            OutputStream out = s.getOutputStream();
            out.write(icreq);
            out.flush();
            InputStream in = s.getInputStream();
            byte[] resp = new byte[128];
            int got = 0;
            while (got < resp.length) {
                int n = in.read(resp, got, resp.length - got);
                if (n < 0) {
                    return "connection closed after " + got + " bytes of ICResp";
                }
                got += n;
            }
            return resp[0] == 0x01 ? null : "answered PDU type " + resp[0] + " instead of ICResp";
        } catch (IOException ex) {
            return ex.toString();
        }
    }
}
