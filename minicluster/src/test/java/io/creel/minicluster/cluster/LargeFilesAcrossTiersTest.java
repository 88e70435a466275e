package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectReader;
import io.creel.client.DirectWriter;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.storage.local.LocalTierKeys;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A file larger than the DRAM tier: it fills DRAM, spills into the disk tier, and reads back
 * byte-identical through the same-host path and through TCP.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class LargeFilesAcrossTiersTest {
    private static final long MIB = 1 << 20;
    private static final long FILE_SIZE = 272 * MIB + 12345; // more than 256 MiB, not block-aligned
    private static final long SEED = 7;
    private static Clusters.Running running;

    @BeforeAll
    static void start() {
        running = Clusters.start(b -> b.dram(128 * MIB).disk(512 * MIB));
    }

    @AfterAll
    static void stop() {
        running.close();
    }

    @Test
    void aFileSpanningBothTiersReadsBackIdentically() {
        try (CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            CreelNode file = client.create("/big", NodeType.FILE).join();
            DirectWriter w = file.writer();
            ByteBuffer buf = ByteBuffer.allocateDirect((int) (4 * MIB));
            for (long off = 0; off < FILE_SIZE; off += buf.capacity()) {
                int n = (int) Math.min(buf.capacity(), FILE_SIZE - off);
                buf.clear().limit(n);
                TestData.fill(buf, SEED, off);
                w.write(buf).join(); // the buffer is lent to the writer until the future completes
            }
            NodeInfo closed = w.close().join();
            assertEquals(FILE_SIZE, closed.length());

            long dramUsed = 0;
            long diskUsed = 0;
            long dramFree = 0;
            for (StatusReply s : client.status().join()) {
                for (ServerStatus st : s.servers()) {
                    if (st.server().storageClass().equals("dram")) {
                        dramUsed += st.usedBlocks();
                        dramFree += st.freeBlocks();
                    } else {
                        diskUsed += st.usedBlocks();
                    }
                }
            }
            assertEquals(0, dramFree, "DRAM should be full before anything goes to disk");
            assertTrue(dramUsed >= 127, "DRAM holds the first part of the file: " + dramUsed);
            assertTrue(diskUsed >= 272 - 128, "the rest spilled into the disk tier: " + diskUsed);

            verifyDirect(client.lookup("/big").join(), (int) (4 * MIB));
        }
        // The same bytes over TCP only: no mapping of the DRAM file, no direct read of the disk file.
        try (CreelClient tcpOnly = CreelClient.connect(running.cluster.clientConf()
                .with(LocalTierKeys.LOCAL_ACCESS, "false"))) {
            verifyDirect(tcpOnly.lookup("/big").join(), (int) (3 * MIB + 17));
        }
    }

    @Test
    void bufferedStreamsAndPositionedReadsSeeTheSameBytes() throws Exception {
        try (CreelClient client = CreelClient.connect(running.cluster.clientConf())) {
            long size = 9 * MIB + 3;
            CreelNode file = client.create("/streamed", NodeType.FILE).join();
            try (var out = file.outputStream()) {
                byte[] chunk = new byte[100_003];
                for (long off = 0; off < size; off += chunk.length) {
                    int n = (int) Math.min(chunk.length, size - off);
                    System.arraycopy(TestData.bytes(11, off, n), 0, chunk, 0, n);
                    out.write(chunk, 0, n);
                }
            }
            CreelNode node = client.lookup("/streamed").join();
            assertEquals(size, node.length());
            try (InputStream in = node.inputStream()) {
                byte[] b = new byte[77_777];
                long off = 0;
                int n;
                while ((n = in.read(b)) > 0) {
                    TestData.verify(ByteBuffer.wrap(b, 0, n), 11, off, "/streamed");
                    off += n;
                }
                assertEquals(size, off);
            }
            // A positioned read across a block boundary.
            ByteBuffer dst = ByteBuffer.allocate(4096);
            long pos = 3 * MIB - 1000;
            assertEquals(4096, node.read(pos, dst).join());
            dst.flip();
            TestData.verify(dst, 11, pos, "positioned read");
        }
    }

    private static void verifyDirect(CreelNode node, int bufferSize) {
        assertEquals(FILE_SIZE, node.length());
        DirectReader r = node.reader();
        ByteBuffer buf = ByteBuffer.allocateDirect(bufferSize);
        long off = 0;
        while (true) {
            buf.clear();
            int n = r.read(buf).join();
            if (n < 0) {
                break;
            }
            buf.flip();
            TestData.verify(buf, SEED, off, node.path());
            off += n;
        }
        assertEquals(FILE_SIZE, off);
    }
}
