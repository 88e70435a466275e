package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.TableEntry;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.namespace.NodeType;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The Java example of README.md, kept compiling and working. */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ReadmeExampleTest {
    @Test
    void theReadmeExampleRuns() throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(32L << 20).disk(32L << 20))) {
            String address = running.cluster.address().toUri();
            byte[] data = "part zero".getBytes(StandardCharsets.UTF_8);
            byte[] bytes = "hello".getBytes(StandardCharsets.UTF_8);
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            ByteArrayOutputStream sink = new ByteArrayOutputStream();

            // --- as in README.md ---
            CreelConf conf = CreelConf.defaults().with(ConfKeys.NAMENODE_ADDRESS, address);
            try (CreelClient creel = CreelClient.connect(conf)) {
                creel.create("/jobs", NodeType.DIRECTORY).join();

                CreelNode file = creel.create("/jobs/part-0", NodeType.FILE).join();
                try (OutputStream out = file.outputStream()) {
                    out.write(data);
                }
                try (InputStream in = creel.lookup("/jobs/part-0").join().inputStream()) {
                    in.transferTo(printed);
                }

                creel.create("/cache", NodeType.TABLE).join();
                creel.putValue("/cache", "alice", ByteBuffer.wrap(bytes)).join();
                ByteBuffer value = creel.getValue("/cache", "alice").join();

                creel.create("/events", NodeType.TABLE, CreateOptions.defaults().withOrdered(true)).join();
                creel.putValue("/events", "2026-11-27T09:30", ByteBuffer.wrap(bytes)).join();
                List<TableEntry> firstTen = creel.scanValues("/events", "2026-11-27", 10).join();

                creel.create("/shuffle", NodeType.DIRECTORY).join();
                creel.create("/shuffle/bag", NodeType.BAG).join();
                creel.move("/jobs/part-0", "/shuffle/bag/part-0").join();
                try (InputStream all = creel.lookup("/shuffle/bag").join().bagStream()) {
                    all.transferTo(sink);
                }
                // --- end of the README example ---

                byte[] got = new byte[value.remaining()];
                value.get(got);
                assertArrayEquals(bytes, got);
                assertEquals(List.of("2026-11-27T09:30"), firstTen.stream().map(TableEntry::key).toList());
            }
            assertEquals("part zero", printed.toString(StandardCharsets.UTF_8));
            assertEquals("part zero", sink.toString(StandardCharsets.UTF_8));
        }
    }
}
