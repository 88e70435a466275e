package io.creel.multihost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A storage server's link goes down while a client waits on a read from it: nothing is refused,
 * packets just vanish, so only the client's request timeout can end the wait. It must, with a clear
 * error naming the node and the server; once the link is back, the same client reads again.
 */
class LinkCutTest extends OneNamenodeThreeServers {

    @ParameterizedTest(name = "{0}")
    @EnumSource(LabSecurity.class)
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void aReadFromAServerBehindACutLinkTimesOutAndWorksAgainOnceTheLinkIsBack(LabSecurity security) {
        startCluster(security);
        NetworkLab.Host far = server(4);
        writePinned("/far", 2 << 20, 5, far);

        // One client reads /far over and over, a chunk every 100 ms, and keeps going after errors.
        HostProcess reader = cluster.startDriver(clientHost, "reader", "read", "/far", "5", "pause=100", "loop=true");
        reader.waitForLine("OK read /far " + (2 << 20), CLIENT_RUN);
        reader.waitForLine("PROGRESS read", CLIENT_RUN);

        long cut = System.nanoTime();
        net.cutLink(far);
        long timeout = cluster.millis("creel.client.request.timeout");
        Matcher failure = assertClearFailure(reader, "read", "/far", cluster.storageAddress(far), cut,
                timeout + SLACK_MS);
        assertEquals("TIMEOUT", failure.group(3), "a silent peer is a timeout: " + failure.group(0));
        long stepMs = Long.parseLong(failure.group(4));
        assertTrue(stepMs <= timeout + 2000, "the read waited " + stepMs + " ms, the timeout is " + timeout + " ms");

        net.restoreLink(far);
        // TCP retransmission backs off while the link is down, so the first success may take a while.
        reader.waitForLine("OK read /far " + (2 << 20), Duration.ofSeconds(45));
        assertFalse(reader.output().contains("CORRUPT"), "wrong bytes:\n" + reader.tail(20));
        assertReadsBack("/far", 2 << 20, 5, "fresh-reader");
        reader.stop(Duration.ofSeconds(5));
    }
}
