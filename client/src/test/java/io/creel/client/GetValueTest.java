package io.creel.client;

import static io.creel.client.TestData.bytes;
import static io.creel.client.TestData.failure;
import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.client.fake.FakeCluster;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A get reads the value current when it looked the key up; if that version is replaced and its
 * block reused before the bytes are read, the key still exists, so the get looks it up again and
 * answers with the new value rather than an error (found by the model test's concurrent phase).
 */
class GetValueTest {
    @Test
    void aValueReplacedBetweenTheLookupAndTheReadIsLookedUpAgain() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/t", NodeType.TABLE));
            byte[] v1 = bytes(100, 1);
            byte[] v2 = bytes(120, 2);
            get(c.putValue("/t", "k", ByteBuffer.wrap(v1)));
            long v1Block = c.blockCache().peek(new io.creel.client.block.BlockKey(0,
                    get(c.lookup("/t/k")).info().id(), 0)).blockNumber();

            CreelClient reader = cluster.client();
            AtomicBoolean once = new AtomicBoolean();
            cluster.storage.onReadStart = () -> {
                if (once.compareAndSet(false, true)) {
                    // Another writer replaces the value, and the old version's block is reused.
                    cluster.namenode().replaceValue("/t/k", v2);
                    cluster.storage.retag(v1Block);
                }
            };
            ByteBuffer got = get(reader.getValue("/t", "k"));
            byte[] bytes = new byte[got.remaining()];
            got.get(bytes);
            assertArrayEquals(v2, bytes, "the value current after the replacement");
        }
    }

    @Test
    void aKeyThatIsGoneIsNotFoundAndAFileIsNotAValue() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/t", NodeType.TABLE));
            assertEquals(ErrorCode.NOT_FOUND, failure(c.getValue("/t", "missing")).code());
            get(get(c.create("/f", NodeType.FILE)).writer().close());
            assertEquals(ErrorCode.INVALID_ARGUMENT, failure(c.getValue("/", "f")).code(), "a File is not a value");
        }
    }
}
