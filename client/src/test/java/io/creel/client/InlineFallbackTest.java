package io.creel.client;

import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.creel.client.fake.FakeCluster;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * Against a namenode that keeps nothing inline (its replies say so), small values still work the
 * block way: the client offers a value with its first create only until it has heard the limit,
 * then writes values to blocks as before, and writers never try to commit inline.
 */
class InlineFallbackTest {
    @Test
    void aNamenodeThatKeepsNothingInlineGetsValuesWrittenToBlocks() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/t", NodeType.TABLE));
            byte[] v1 = {1, 2, 3};
            byte[] v2 = {4, 5, 6, 7};
            get(c.putValue("/t", "a", ByteBuffer.wrap(v1)));
            get(c.putValue("/t", "b", ByteBuffer.wrap(v2)));
            assertEquals(0, cluster.namenode().createsOfferingValues.get(),
                    "the create of /t already told the client the limit (0): no value was offered");
            ByteBuffer a = get(c.getValue("/t", "a"));
            byte[] got = new byte[a.remaining()];
            a.get(got);
            assertArrayEquals(v1, got);
            CreelNode b = get(c.lookup("/t/b"));
            assertFalse(b.isInline());
            assertEquals(1, get(c.blockLocations(b, 0, b.length())).size(), "the value is in its block");

            CreelClient fresh = cluster.client();
            get(fresh.putValue("/t", "c", ByteBuffer.wrap(v2)));
            assertEquals(1, cluster.namenode().createsOfferingValues.get(),
                    "a client that has not heard the limit offers the value once; refused, it writes it");
            ByteBuffer back = get(fresh.getValue("/t", "c"));
            byte[] c3 = new byte[back.remaining()];
            back.get(c3);
            assertArrayEquals(v2, c3);
        }
    }
}
