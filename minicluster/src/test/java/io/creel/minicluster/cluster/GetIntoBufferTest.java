package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.storage.local.LocalTierKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code getValue(table, key, dst)} reads a value into the caller's buffer: from its position, the
 * position advanced by the value's length, with the guarantees of the get that returns a new buffer
 * (no stale value after a replace), and a buffer too small is refused before anything is written.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GetIntoBufferTest {
    private static final int BLOCK = 1 << 20;

    private static Clusters.Running cluster() {
        return Clusters.start(b -> b.dram(32L << 20).disk(8L << 20));
    }

    @Test
    void valuesInlineInOneBlockAndInManyLandAtTheBuffersPosition() throws Exception {
        for (boolean direct : new boolean[] {false, true}) {
            for (boolean tcp : new boolean[] {false, true}) {
                try (Clusters.Running running = cluster();
                     CreelClient c = CreelClient.connect(running.cluster.clientConf()
                             .with(LocalTierKeys.LOCAL_ACCESS, Boolean.toString(!tcp)))) {
                    c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
                    String where = (direct ? "direct" : "heap") + " buffer, " + (tcp ? "TCP" : "same host");
                    for (int length : new int[] {0, 100, 300 << 10, 3 * BLOCK + 5}) {
                        c.putValue("/t", "k" + length, ByteBuffer.wrap(TestData.bytes(length, 0, length))).join();
                        ByteBuffer dst = direct ? ByteBuffer.allocateDirect(length + 20) : ByteBuffer.allocate(length + 20);
                        dst.position(7);
                        for (int get = 0; get < 2; get++) { // the second get reads where the first saw the value
                            dst.position(7);
                            assertEquals(length, (int) c.getValue("/t", "k" + length, dst).join(), where);
                            assertEquals(7 + length, dst.position(), "the position moved past the value (" + where + ")");
                            TestData.verify(dst.duplicate().position(7).limit(7 + length), length, 0,
                                    length + " bytes into a " + where);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aGetAfterAReplaceReadsTheNewValueIntoTheSameBuffer() throws Exception {
        try (Clusters.Running running = cluster(); CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
            ByteBuffer dst = ByteBuffer.allocateDirect(BLOCK);
            for (int version = 1; version <= 4; version++) {
                int length = 200_000 + version;
                c.putValue("/t", "k", ByteBuffer.wrap(TestData.bytes(version, 0, length))).join();
                dst.clear();
                assertEquals(length, (int) c.getValue("/t", "k", dst).join());
                TestData.verify(dst.flip(), version, 0, "version " + version);
            }
        }
    }

    @Test
    void aBufferTooSmallIsRefusedAndLeftAsItWas() throws Exception {
        try (Clusters.Running running = cluster(); CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
            for (int length : new int[] {100, 300 << 10}) {
                c.putValue("/t", "k", ByteBuffer.wrap(TestData.bytes(3, 0, length))).join();
                for (int get = 0; get < 2; get++) { // before and after the client has seen where the value is
                    ByteBuffer dst = ByteBuffer.allocate(length - 1);
                    CreelException e = CreelException.unwrap(assertThrows(CompletionException.class,
                            () -> c.getValue("/t", "k", dst).join()));
                    assertEquals(ErrorCode.LIMIT_EXCEEDED, e.code(), e.toString());
                    assertTrue(e.getMessage().contains(length + " bytes") && e.getMessage().contains("room for "
                            + (length - 1)), e.getMessage());
                    assertEquals(0, dst.position());
                    for (int i = 0; i < dst.capacity(); i++) {
                        assertEquals(0, dst.get(i), "nothing was written into the buffer");
                    }
                    c.getValue("/t", "k").join(); // now the client knows where it lives
                }
            }
        }
    }

    @Test
    void aMissingKeyOrANodeThatIsNoKeyValueFailAsTheyDoForANewBuffer() throws Exception {
        try (Clusters.Running running = cluster(); CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
            c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)).join();
            c.create("/dir", NodeType.DIRECTORY, CreateOptions.defaults()).join();
            ByteBuffer dst = ByteBuffer.allocate(16);
            assertEquals(ErrorCode.NOT_FOUND, CreelException.unwrap(assertThrows(CompletionException.class,
                    () -> c.getValue("/t", "absent", dst).join())).code());
            assertEquals(ErrorCode.INVALID_ARGUMENT, CreelException.unwrap(assertThrows(CompletionException.class,
                    () -> c.getValue("/", "dir", dst).join())).code());
            assertEquals(0, dst.position());
        }
    }
}
