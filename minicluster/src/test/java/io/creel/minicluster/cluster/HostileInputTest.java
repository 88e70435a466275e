package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.namespace.NodeType;
import io.creel.storage.runtime.StorageServerRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Garbage and truncated frames sent to a running cluster's namenode and storage servers close
 * those connections; the cluster keeps serving a well-behaved client throughout.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HostileInputTest {
    @Test
    void theClusterSurvivesGarbageTruncationAndOversizedFrames() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(16L << 20).disk(16L << 20));
             CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            CreelNode f = client.create("/survivor", NodeType.FILE).join();
            f.writer().write(ByteBuffer.wrap("still here".getBytes())).join();
            f.writer().close().join();

            int[] ports = new int[1 + running.cluster.storageServers().size()];
            ports[0] = running.cluster.namenode().port();
            int i = 1;
            for (StorageServerRuntime s : running.cluster.storageServers()) {
                ports[i++] = s.info().port();
            }
            Random random = new Random(42);
            for (int k = 0; k < ports.length; k++) {
                int port = ports[k];
                byte opcode = (byte) (k == 0 ? 2 : 20); // LOOKUP for the namenode, BLOCK_READ for storage
                // A well-formed frame header for the server's own kind of request, with a random body.
                byte[] noise = new byte[4096];
                random.nextBytes(noise);
                ByteBuffer.wrap(noise).putInt(noise.length - 4).put(opcode).put((byte) 0).putLong(1);
                sendAndExpectClose(port, noise);
                sendAndExpectClose(port, new byte[] {0x7f, 0x7f, 0x7f, 0x7f, 1});          // 2 GiB frame
                sendAndExpectClose(port, new byte[] {0, 0, 0, 12, opcode, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 9}); // cut body
                sendAndExpectClose(port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());

                ByteBuffer got = ByteBuffer.allocate(10);
                client.lookup("/survivor").join().reader().read(got).join();
                assertEquals("still here", new String(got.array()), "served after hostile input on port " + port);
            }
        }
    }

    private static void sendAndExpectClose(int port, byte[] bytes) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(bytes);
            out.flush();
            InputStream in = s.getInputStream();
            // The server may answer a request it could parse before it gives up; what matters is the close.
            byte[] sink = new byte[8192];
            while (in.read(sink) >= 0) {
                // drain until the server closes the connection
            }
        }
    }
}
