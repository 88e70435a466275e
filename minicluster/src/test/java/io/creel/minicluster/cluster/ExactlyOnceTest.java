package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectWriter;
import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.FaultyTransport;
import io.creel.common.rpc.FaultyTransport.Cut;
import io.creel.minicluster.MiniCluster;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 21: a namespace change whose connection is cut at any point of its exchange — before the
 * request leaves, after it left, after its reply arrived — or whose namenode restarts before the
 * client hears the answer, is retried by the client and applied exactly once: the caller gets the
 * first answer, never a duplicate (ALREADY_EXISTS for its own create, NOT_FOUND for its own
 * remove) and never a lost change. Connections are cut by the test transport {@code faulty://}.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ExactlyOnceTest {
    private static Path logDir;
    private static Clusters.Running running;
    private CreelClient client;
    private int cutsBefore;
    private long answeredBefore;

    @BeforeAll
    static void startCluster() throws IOException {
        logDir = Files.createTempDirectory("creel-once-log-");
        running = Clusters.start(b -> b.servers(1, 1)
                .set("creel.block.size", "64k")
                .set("creel.storage.heartbeat.interval", "100ms")
                .set("creel.namenode.log.dir", logDir.toString()));
    }

    @AfterAll
    static void stopCluster() {
        try {
            running.close();
        } finally {
            Clusters.delete(logDir);
        }
    }

    @BeforeEach
    void connect() {
        MiniCluster c = running.cluster;
        client = CreelClient.connect(c.clientConf().with(ConfKeys.NAMENODE_ADDRESS,
                "faulty://127.0.0.1:" + c.namenode().port()));
        cutsBefore = FaultyTransport.cuts();
        answeredBefore = c.namenode().retriesAnswered();
    }

    @AfterEach
    void close() {
        boolean unused = FaultyTransport.disarm();
        client.close();
        assertTrue(!unused, "the armed cut was never taken: the test did not exercise it");
    }

    /** The cut happened once, and the retry was answered from the namenode's memory unless the first attempt never arrived. */
    private void assertCutAndAnswered(Cut cut) {
        assertEquals(cutsBefore + 1, FaultyTransport.cuts(), "connections cut");
        long answered = running.cluster.namenode().retriesAnswered() - answeredBefore;
        if (cut == Cut.BEFORE_SEND) {
            assertEquals(0, answered, "the namenode never saw the first attempt, so the retry was the request");
        } else {
            assertEquals(1, answered, "the retry got the first attempt's answer");
        }
    }

    private static <T> T join(CompletableFuture<T> f) {
        return f.orTimeout(60, TimeUnit.SECONDS).join();
    }

    private static ErrorCode failureOf(CompletableFuture<?> f) {
        return CreelException.unwrap(assertThrows(CompletionException.class, () -> join(f))).code();
    }

    private List<String> namesIn(String dir) {
        return join(client.list(dir)).stream().map(e -> e.name()).sorted().toList();
    }

    private static byte[] bytes(int n, int seed) {
        return TestData.bytes(seed, 0, n);
    }

    private byte[] readAll(String path) {
        CreelNode n = join(client.lookup(path));
        ByteBuffer dst = ByteBuffer.allocate((int) n.length());
        join(n.read(0, dst));
        return dst.array();
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void aCreateIsAppliedOnceAndAnswersWithItsNodeWhichItsWriterCanWrite(Cut cut) {
        String dir = "/create-" + cut;
        join(client.create(dir, NodeType.DIRECTORY));
        FaultyTransport.arm(Opcode.CREATE, cut);
        CreelNode file = join(client.create(dir + "/f", NodeType.FILE));
        assertCutAndAnswered(cut);
        assertEquals(join(client.lookup(dir + "/f")).info().id(), file.info().id(), "the create's own node");
        assertEquals(List.of("f"), namesIn(dir));
        // The lease the first attempt took outlived the cut connection: the writer writes and commits.
        byte[] data = bytes(1000, 1);
        DirectWriter w = file.writer();
        join(w.write(ByteBuffer.wrap(data)));
        join(w.close());
        assertArrayEquals(data, readAll(dir + "/f"));
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void aCommitIsAppliedOnceAndItsCloseSucceeds(Cut cut) {
        String path = "/commit-" + cut;
        byte[] data = bytes(100_000, 2); // two blocks of 64 KiB
        CreelNode file = join(client.create(path, NodeType.FILE));
        DirectWriter w = file.writer();
        join(w.write(ByteBuffer.wrap(data)));
        FaultyTransport.arm(Opcode.COMMIT, cut);
        join(w.close());
        assertCutAndAnswered(cut);
        assertArrayEquals(data, readAll(path));
        // The close released the lease: another writer may append at once.
        CreelNode again = join(client.openForAppend(path));
        assertEquals(data.length, again.length());
        join(again.writer().close());
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void aRemoveIsAppliedOnceAndAnswersWithTheRemovedNodeNotNotFound(Cut cut) {
        String path = "/remove-" + cut;
        long id = join(client.create(path, NodeType.DIRECTORY)).info().id();
        FaultyTransport.arm(Opcode.REMOVE, cut);
        NodeInfo removed = join(client.delete(path, false));
        assertCutAndAnswered(cut);
        assertEquals(id, removed.id());
        assertEquals(ErrorCode.NOT_FOUND, failureOf(client.lookup(path)));
    }

    @ParameterizedTest
    @EnumSource(Cut.class)
    void aMoveIsAppliedOnceAndDoesNotFail(Cut cut) {
        String source = "/move-" + cut;
        String target = "/moved-" + cut;
        long id = join(client.create(source, NodeType.DIRECTORY)).info().id();
        FaultyTransport.arm(Opcode.MOVE, cut);
        CreelNode moved = join(client.move(source, target));
        assertCutAndAnswered(cut);
        assertEquals(id, moved.info().id());
        assertEquals(ErrorCode.NOT_FOUND, failureOf(client.lookup(source)));
        assertEquals(id, join(client.lookup(target)).info().id());
    }

    @Test
    void anErrorAnsweredBeforeTheCutIsTheAnswerOfTheRetryToo() {
        join(client.create("/taken", NodeType.DIRECTORY));
        FaultyTransport.arm(Opcode.CREATE, Cut.AFTER_REPLY);
        assertEquals(ErrorCode.ALREADY_EXISTS, failureOf(client.create("/taken", NodeType.DIRECTORY)));
        assertCutAndAnswered(Cut.AFTER_REPLY);
    }

    @Test
    void anAnsweredErrorIsNotRetried() {
        assertEquals(ErrorCode.NOT_FOUND, failureOf(client.delete("/never-there", false)));
        assertEquals(answeredBefore, running.cluster.namenode().retriesAnswered());
        assertEquals(cutsBefore, FaultyTransport.cuts());
    }

    // ------------------------------------------------------------------ a namenode restart before the retry

    /** Cuts {@code op}'s connection once its reply arrived, and restarts the namenode before the client retries. */
    private void armRestartAfterReply(Opcode op) {
        FaultyTransport.arm(new FaultyTransport.Fault(op, Cut.AFTER_REPLY, () -> {
            running.cluster.restartNamenode();
            Clusters.awaitServersLive(running.cluster, 2);
        }));
    }

    /** The retry was answered by the restarted namenode from the answers it restored. */
    private void assertAnsweredAfterRestart() {
        assertEquals(cutsBefore + 1, FaultyTransport.cuts(), "connections cut");
        assertEquals(1, running.cluster.namenode().retriesAnswered(), "the restarted namenode answered the retry");
    }

    @Test
    void aCreateAnsweredBeforeARestartIsAnsweredWithItsNodeAfterIt() {
        armRestartAfterReply(Opcode.CREATE);
        long id = join(client.create("/restart-create", NodeType.DIRECTORY)).info().id();
        assertAnsweredAfterRestart();
        assertEquals(id, join(client.lookup("/restart-create")).info().id());
        assertTrue(namesIn("/").contains("restart-create"));
    }

    @Test
    void aCommitAnsweredBeforeARestartIsAnsweredAfterIt() {
        byte[] data = bytes(5000, 3);
        CreelNode file = join(client.create("/restart-commit", NodeType.FILE));
        DirectWriter w = file.writer();
        join(w.write(ByteBuffer.wrap(data)));
        armRestartAfterReply(Opcode.COMMIT);
        join(w.close());
        assertAnsweredAfterRestart();
        assertEquals(data.length, join(client.lookup("/restart-commit")).length());
    }

    @Test
    void aRemoveAnsweredBeforeARestartIsAnsweredWithTheRemovedNodeAfterIt() {
        long id = join(client.create("/restart-remove", NodeType.DIRECTORY)).info().id();
        armRestartAfterReply(Opcode.REMOVE);
        assertEquals(id, join(client.delete("/restart-remove", false)).id());
        assertAnsweredAfterRestart();
        assertEquals(ErrorCode.NOT_FOUND, failureOf(client.lookup("/restart-remove")));
    }

    @Test
    void aMoveAnsweredBeforeARestartIsAnsweredAfterIt() {
        long id = join(client.create("/restart-move", NodeType.DIRECTORY)).info().id();
        armRestartAfterReply(Opcode.MOVE);
        assertEquals(id, join(client.move("/restart-move", "/restart-moved")).info().id());
        assertAnsweredAfterRestart();
        assertEquals(id, join(client.lookup("/restart-moved")).info().id());
        assertEquals(ErrorCode.NOT_FOUND, failureOf(client.lookup("/restart-move")));
    }

    @Test
    void aHandOverAnsweredBeforeARestartIsAnsweredAfterItNotRefusedAsDone() {
        join(client.create("/restart-handover", NodeType.DIRECTORY, io.creel.client.CreateOptions.defaults()
                .withExpiry(io.creel.common.protocol.Expiry.session())));
        armRestartAfterReply(Opcode.HAND_OVER);
        // Applied again, the retry would find the node permanent already and be refused ("not an expiring node").
        assertEquals(null, join(client.makePermanent("/restart-handover")).expiry());
        assertAnsweredAfterRestart();
        assertEquals(null, join(client.lookup("/restart-handover")).info().expiry(), "permanent after the restart");
    }

    @Test
    void aCreateCutBeforeItLeftAndRetriedAfterARestartIsAppliedThen() {
        FaultyTransport.arm(new FaultyTransport.Fault(Opcode.CREATE, Cut.BEFORE_SEND, () -> {
            running.cluster.restartNamenode();
            Clusters.awaitServersLive(running.cluster, 2);
        }));
        long id = join(client.create("/restart-unsent", NodeType.DIRECTORY)).info().id();
        assertEquals(cutsBefore + 1, FaultyTransport.cuts());
        assertEquals(0, running.cluster.namenode().retriesAnswered(), "the restarted namenode applied it");
        assertEquals(id, join(client.lookup("/restart-unsent")).info().id());
    }
}
