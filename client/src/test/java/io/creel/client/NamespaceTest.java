package io.creel.client;

import static io.creel.client.TestData.failure;
import static io.creel.client.TestData.get;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.StableHash;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Routing to namenode partitions, listings, and how failures reach the caller. */
class NamespaceTest {

    @Test
    void eachTopLevelNameGoesToTheNamenodeItsStableHashNames() throws Exception {
        try (FakeCluster cluster = new FakeCluster(3)) {
            CreelClient c = cluster.client();
            List<String> names = List.of("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta");
            for (String n : names) {
                get(c.create("/" + n, NodeType.DIRECTORY));
                get(c.create("/" + n + "/child", NodeType.FILE)).writer().close().get();
            }
            for (String n : names) {
                int owner = StableHash.partition(n, 3);
                for (int i = 0; i < 3; i++) {
                    assertEquals(i == owner, cluster.namenodes.get(i).exists("/" + n), n + " on namenode " + i);
                    assertEquals(i == owner, cluster.namenodes.get(i).exists("/" + n + "/child"));
                }
            }
            List<String> root = get(c.list("/")).stream().map(DirectoryEntry::name).sorted().toList();
            assertEquals(names.stream().sorted().toList(), root, "listing / merges every partition");
        }
    }

    @Test
    void aMoveBetweenPartitionsIsRefusedByTheClient() throws Exception {
        try (FakeCluster cluster = new FakeCluster(2)) {
            CreelClient c = cluster.client();
            String a = "a";
            String b = "b";
            int i = 0;
            while (StableHash.partition(b, 2) == StableHash.partition(a, 2)) {
                b = "b" + i++;
            }
            get(c.create("/" + a, NodeType.DIRECTORY));
            assertEquals(ErrorCode.UNSUPPORTED, failure(c.move("/" + a, "/" + b)).code());
        }
    }

    @Test
    void aBlockOfRecordsTheListingCannotUseIsSkippedNotFatal() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            cluster.settings().put("creel.client.block.cache.size", "16");
            CreelClient c = cluster.client();
            get(c.create("/d", NodeType.DIRECTORY));
            int perBlock = FakeCluster.BLOCK / io.creel.common.namespace.DirectoryRecord.SIZE;
            for (int i = 0; i < 3 * perBlock; i++) {
                get(c.create("/d/c" + i, NodeType.DIRECTORY));
            }
            // The middle block's tag moves on, as for a block whose records are not written yet.
            cluster.storage.retag(cluster.namenode().containerBlock("/d", 1));
            List<String> listed = get(c.list("/d")).stream().map(DirectoryEntry::name).toList();
            assertEquals(2 * perBlock, listed.size(), "the blocks before and after it are listed: " + listed);
            assertTrue(listed.contains("c0") && listed.contains("c" + (3 * perBlock - 1)), listed.toString());
            assertFalse(listed.contains("c" + perBlock), listed.toString());
        }
    }

    @Test
    void listingShowsChildrenAndSkipsRecordsOfNodesThatNoLongerExist() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/d", NodeType.DIRECTORY));
            for (String n : List.of("a", "b", "c", "e")) {
                get(c.create("/d/" + n, NodeType.FILE)).writer().close().get();
            }
            get(c.delete("/d/e", false));
            cluster.namenode().removeKeepingRecord("/d/b");
            List<DirectoryEntry> entries = get(c.list("/d"));
            assertEquals(List.of("a", "c"), entries.stream().map(DirectoryEntry::name).toList());
            assertEquals("/d/a", entries.get(0).path());
            assertEquals(NodeType.FILE, entries.get(0).info().type());
        }
    }

    @Test
    void aListingSpanningSeveralBlocksOfRecordsIsComplete() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/t", NodeType.TABLE));
            int keys = 3 * FakeCluster.BLOCK / 512 + 5; // records over four blocks
            for (int i = 0; i < keys; i++) {
                get(c.putValue("/t", "k" + i, ByteBuffer.wrap(new byte[] {(byte) i})));
            }
            assertEquals(keys, get(c.list("/t")).size());
        }
    }

    @Test
    void aNonEnumerableTableCannotBeListed() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/t", NodeType.TABLE, CreateOptions.defaults().withEnumerable(false)));
            var e = failure(c.list("/t"));
            assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
            assertTrue(e.getMessage().contains("/t is not enumerable"), e.getMessage());
        }
    }

    @Test
    void failuresArriveAsCreelExceptionsWithTheServersCode() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            assertEquals(ErrorCode.NOT_FOUND, failure(c.lookup("/missing")).code());
            assertEquals(ErrorCode.NOT_FOUND, failure(c.create("/no/such/parent", NodeType.FILE)).code());
            assertEquals(ErrorCode.INVALID_PARENT, failure(c.create("/kv", NodeType.KEYVALUE)).code());
            get(c.create("/f", NodeType.FILE)).writer().close().get();
            assertEquals(ErrorCode.ALREADY_EXISTS, failure(c.create("/f", NodeType.FILE)).code());
            // A bad name fails the future; it is not thrown at the caller.
            assertEquals(ErrorCode.INVALID_NAME, failure(c.lookup("relative/path")).code());
            assertEquals(ErrorCode.NOT_A_CONTAINER, failure(c.list("/f")).code());
        }
    }

    @Test
    void keyValuesAreReplacedWhenTheNewValueIsClosed() throws Exception {
        try (FakeCluster cluster = new FakeCluster(1)) {
            CreelClient c = cluster.client();
            get(c.create("/t", NodeType.TABLE));
            get(c.putValue("/t", "k", ByteBuffer.wrap("one".getBytes(StandardCharsets.UTF_8))));
            CreelNode next = get(c.create("/t/k", NodeType.KEYVALUE));
            get(next.writer().write(ByteBuffer.wrap("two!".getBytes(StandardCharsets.UTF_8))));
            assertEquals("one", StandardCharsets.UTF_8.decode(get(c.getValue("/t", "k"))).toString());
            get(next.writer().close());
            assertEquals("two!", StandardCharsets.UTF_8.decode(get(c.getValue("/t", "k"))).toString());
            assertFalse(get(c.lookup("/t/k")).info().writing());
        }
    }
}
