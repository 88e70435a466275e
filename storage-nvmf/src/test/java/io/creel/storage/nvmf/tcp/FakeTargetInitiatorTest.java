package io.creel.storage.nvmf.tcp;

import static io.creel.storage.nvmf.tcp.Await.done;
import static io.creel.storage.nvmf.tcp.Await.failure;
import static io.creel.storage.nvmf.tcp.Await.until;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.io.ByteRangeIo;
import io.creel.storage.nvmf.nvme.NvmeCommands;
import io.creel.storage.nvmf.nvme.Opcodes;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The initiator against {@link FakeTarget}: set-up, data paths, digests, and everything a target can do wrong. */
class FakeTargetInitiatorTest {
    private static final int SECTOR = 512;
    private static final long SECTORS = 8192;

    private FakeTarget target;
    private NvmeTcpEventLoops loops;
    private final List<NvmeTcpController> controllers = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        target = new FakeTarget(SECTOR, SECTORS);
        loops = NvmeTcpEventLoops.nio(2, "initiator-test");
    }

    @AfterEach
    void stop() {
        controllers.forEach(NvmeTcpController::close);
        loops.close();
        target.close();
    }

    private static NvmeTcpOptions options() {
        return NvmeTcpOptions.defaults().withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    private NvmeTcpController connect(NvmeTcpOptions options) throws Exception {
        NvmeTcpController c = done(NvmeTcpController.connect(target.endpoint(), options, loops));
        controllers.add(c);
        return c;
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void connectEnablesTheControllerIdentifiesItAndOpensTheIoQueues() throws Exception {
        NvmeTcpController c = connect(options().withIoQueues(3, 16));
        assertEquals(1, c.controllerId());
        assertEquals("Creel fake target", c.identity().model());
        assertEquals("1.4.0", c.version());
        assertEquals(3, c.ioQueueCount());
        assertEquals(3, c.liveIoQueues());
        assertEquals(3, target.ioConnects.get());
        assertEquals(options().hostNqn(), target.hostNqns.get(0));
        assertEquals(10_000, target.lastKato, "KATO from the options");
        assertTrue(c.isAlive());
        assertEquals(List.of(1), done(c.activeNamespaces()));
        NvmeNamespace ns = done(c.namespace(1));
        assertEquals(SECTOR, ns.sectorSize());
        assertEquals(SECTORS, ns.sectorCount());
        assertEquals(1 << 20, ns.maxTransferBytes());
    }

    @Test
    void writesGoInTheCapsuleOrThroughR2tByLengthAndReadsComeBackInPieces() throws Exception {
        target.maxH2cData = 16384;
        target.r2tChunk = 20480;
        target.c2hChunk = 3000;
        NvmeNamespace ns = done(connect(options()).namespace(1));
        byte[] small = random(4096, 1);
        byte[] large = random(65536, 2);
        done(ns.write(0, ByteBuffer.wrap(small)));
        done(ns.write(8, ByteBuffer.wrap(large)));
        assertEquals(1, target.inCapsuleWrites.get(), "4 KiB fits the 8 KiB in-capsule limit");
        assertEquals(1, target.r2tWrites.get(), "64 KiB waits for R2Ts (four, answered in 16 KiB H2CData PDUs)");
        assertArrayEquals(small, target.contents(0, 4096));
        assertArrayEquals(large, target.contents(8 * SECTOR, 65536));
        ByteBuffer back = ByteBuffer.allocate(65536);
        done(ns.read(8, back));
        assertArrayEquals(large, back.array(), "read from 22 C2HData PDUs of 3000 bytes");
        assertEquals(0, back.position(), "a namespace read leaves positions alone");
        done(ns.flush());
        assertEquals(1, target.flushes.get());
    }

    @Test
    void writesThatDoNotFitTheControllersCapsuleWaitForR2t() throws Exception {
        target.inCapsuleBytes = 1024;
        NvmeNamespace ns = done(connect(options()).namespace(1));
        done(ns.write(0, ByteBuffer.wrap(random(1024, 3))));
        done(ns.write(2, ByteBuffer.wrap(random(1536, 4))));
        assertEquals(1, target.inCapsuleWrites.get(), "1 KiB fits");
        assertEquals(1, target.r2tWrites.get(), "1.5 KiB does not");
        assertArrayEquals(random(1024, 3), target.contents(0, 1024));
        assertArrayEquals(random(1536, 4), target.contents(2 * SECTOR, 1536));
    }

    @ParameterizedTest(name = "header digest {0}, data digest {1}")
    @CsvSource({"false,false", "true,false", "false,true", "true,true"})
    void dataSurvivesEveryCombinationOfDigests(boolean header, boolean data) throws Exception {
        target.maxH2cData = 8192;
        target.c2hChunk = 5000;
        NvmeTcpController c = connect(options().withDigests(header, data));
        assertEquals(header, c.headerDigest());
        assertEquals(data, c.dataDigest());
        NvmeNamespace ns = done(c.namespace(1));
        byte[] small = random(2048, 5);
        byte[] large = random(40960, 6);
        done(ns.write(0, ByteBuffer.wrap(small)));
        done(ns.write(100, ByteBuffer.wrap(large)));
        ByteBuffer back = ByteBuffer.allocate(large.length);
        done(ns.read(100, back));
        assertArrayEquals(large, back.array());
        assertArrayEquals(small, target.contents(0, small.length));
        assertEquals(0, target.dataDigestErrors.get());
    }

    @Test
    void manyCommandsInFlightOnSeveralQueuesAllComplete() throws Exception {
        NvmeTcpController c = connect(options().withIoQueues(4, 8));
        NvmeNamespace ns = done(c.namespace(1));
        int n = 400;
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            writes.add(ns.write(i * 8L, ByteBuffer.wrap(random(4096, 100 + i))));
        }
        done(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        List<ByteBuffer> backs = new ArrayList<>();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ByteBuffer b = ByteBuffer.allocateDirect(4096);
            backs.add(b);
            reads.add(ns.read(i * 8L, b));
        }
        done(CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)));
        for (int i = 0; i < n; i++) {
            byte[] got = new byte[4096];
            backs.get(i).duplicate().get(got);
            assertArrayEquals(random(4096, 100 + i), got, "block " + i);
        }
        assertEquals(4, c.liveIoQueues());
    }

    @Test
    void aCommandTheTargetNeverAnswersFailsWithATimeoutAndTakesOnlyItsQueueOutOfUse() throws Exception {
        target.hook = cmd -> cmd.opcode() == Opcodes.IO_READ && cmd.slba() == 77 ? new FakeTarget.Stall()
                : FakeTarget.NORMAL;
        NvmeTcpController c = connect(NvmeTcpOptions.defaults().withTimeouts(Duration.ofMillis(500),
                Duration.ofSeconds(5)));
        NvmeNamespace ns = done(c.namespace(1));
        NvmfException e = failure(ns.read(77, ByteBuffer.allocate(512)));
        assertEquals(NvmfException.Kind.TIMEOUT, e.kind());
        assertTrue(e.getMessage().contains("Read nsid 1 slba 77 nlb 1") && e.getMessage().contains("within 500 ms")
                && e.getMessage().contains(FakeTarget.NQN), e.getMessage());
        until("the timed-out queue closes", () -> c.liveIoQueues() == 1);
        assertTrue(c.isAlive(), "the admin queue is unaffected");
        byte[] data = random(512, 9);
        done(ns.write(3, ByteBuffer.wrap(data)));
        ByteBuffer back = ByteBuffer.allocate(512);
        done(ns.read(3, back));
        assertArrayEquals(data, back.array(), "the other queue carries on");
    }

    @Test
    void commandsInFlightOnAQueueThatTimesOutFailToo() throws Exception {
        target.hook = cmd -> cmd.opcode() == Opcodes.IO_READ ? new FakeTarget.Stall() : FakeTarget.NORMAL;
        NvmeTcpController c = connect(NvmeTcpOptions.defaults().withIoQueues(1, 4)
                .withTimeouts(Duration.ofMillis(400), Duration.ofSeconds(5)));
        NvmeNamespace ns = done(c.namespace(1));
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            reads.add(ns.read(i, ByteBuffer.allocate(512)));
        }
        for (CompletableFuture<Void> r : reads) {
            NvmfException e = failure(r);
            assertEquals(NvmfException.Kind.TIMEOUT, e.kind(), e.getMessage());
        }
        assertEquals(0, c.liveIoQueues());
        NvmfException after = failure(ns.read(0, ByteBuffer.allocate(512)));
        assertTrue(after.getMessage().contains("not sent"), after.getMessage());
    }

    @Test
    void closingFailsEveryCommandInFlightAndEveryOneWaitingForACid() throws Exception {
        target.hook = cmd -> cmd.opcode() == Opcodes.IO_READ ? new FakeTarget.Stall() : FakeTarget.NORMAL;
        NvmeTcpController c = connect(options().withIoQueues(1, 4));
        NvmeNamespace ns = done(c.namespace(1));
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < 6; i++) { // 4 take the queue's CIDs, 2 wait for one
            reads.add(ns.read(i, ByteBuffer.allocate(512)));
        }
        c.close();
        int inFlight = 0;
        for (CompletableFuture<Void> r : reads) {
            NvmfException e = failure(r);
            assertEquals(NvmfException.Kind.CONNECTION, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("closed by the host"), e.getMessage());
            if (e.getMessage().contains("did not complete")) {
                inFlight++;
            } else {
                assertTrue(e.getMessage().contains("not sent"), e.getMessage());
            }
        }
        assertEquals(4, inFlight, "the commands that had a CID failed as in flight, the others as not sent");
    }

    @Test
    void aTargetThatDisappearsMidCommandFailsItAtOnceAndTheControllerReportsTheLoss() throws Exception {
        target.hook = cmd -> {
            if (cmd.opcode() == Opcodes.IO_READ) {
                target.dropAllConnections();
                return new FakeTarget.Stall();
            }
            return FakeTarget.NORMAL;
        };
        NvmeTcpController c = connect(options());
        NvmeNamespace ns = done(c.namespace(1));
        NvmfException e = failure(ns.read(5, ByteBuffer.allocate(4096)));
        assertEquals(NvmfException.Kind.CONNECTION, e.kind());
        assertTrue(e.getMessage().contains("Read nsid 1 slba 5") && e.getMessage().contains("was closed"),
                e.getMessage());
        NvmfException lost = done(c.failure());
        assertEquals(NvmfException.Kind.CONNECTION, lost.kind());
        assertFalse(c.isAlive());
        until("every I/O queue closes with the admin queue", () -> c.liveIoQueues() == 0);
        assertEquals(NvmfException.Kind.CONNECTION, failure(ns.write(0, ByteBuffer.allocate(512))).kind());
    }

    @Test
    void nvmeStatusCodesBecomeErrorsThatNameTheStatusTheCommandAndTheTarget() throws Exception {
        target.hook = cmd -> cmd.opcode() == Opcodes.IO_READ && cmd.slba() == 5 ? new FakeTarget.Fail(2, 0x81)
                : FakeTarget.NORMAL;
        NvmeTcpController c = connect(options());
        NvmeNamespace ns = done(c.namespace(1));
        NvmfException e = failure(ns.read(5, ByteBuffer.allocate(512)));
        assertEquals(NvmfException.Kind.STATUS, e.kind());
        assertEquals(0x81, e.status().orElseThrow().sc());
        assertTrue(e.getMessage().contains("Unrecovered Read Error") && e.getMessage().contains("Read nsid 1 slba 5")
                && e.getMessage().contains("I/O queue"), e.getMessage());
        // the target's own range check, past the namespace's local one
        NvmfException range = failure(c.io(NvmeCommands.read(1, SECTORS - 1, 2, ByteBuffer.allocate(1024))));
        assertEquals("LBA Out of Range", range.status().orElseThrow().name());
        NvmfException ns2 = failure(c.namespace(2));
        assertEquals("Invalid Namespace or Format", ns2.status().orElseThrow().name());
        assertEquals(2, c.liveIoQueues(), "a status is no reason to close a queue");
    }

    @Test
    void requestsANamespaceCannotServeAreRefusedBeforeTheyAreSent() throws Exception {
        NvmeNamespace ns = done(connect(options().withMaxTransferBytes(8192)).namespace(1));
        int before = target.reads.get() + target.writes.get();
        for (CompletableFuture<Void> f : List.of(ns.read(0, ByteBuffer.allocate(100)),
                ns.read(SECTORS, ByteBuffer.allocate(512)), ns.write(-1, ByteBuffer.allocate(512)),
                ns.write(0, ByteBuffer.allocate(8704)), ns.read(0, ByteBuffer.allocate(0)))) {
            NvmfException e = failure(f);
            assertEquals(NvmfException.Kind.INVALID_ARGUMENT, e.kind());
            assertTrue(e.getMessage().contains("namespace 1 of " + FakeTarget.NQN), e.getMessage());
        }
        assertEquals(before, target.reads.get() + target.writes.get());
    }

    @Test
    void mdtsLowersTheLargestTransferAndByteRangeIoSplitsAroundIt() throws Exception {
        target.mdts = 1;
        NvmeTcpController c = connect(options());
        assertEquals(8192, c.maxTransferBytes());
        NvmeNamespace ns = done(c.namespace(1));
        assertEquals(8192, ns.maxTransferBytes());
        ByteRangeIo io = new ByteRangeIo(ns);
        byte[] data = random(100_001, 12);
        done(io.write(333, ByteBuffer.wrap(data)));
        ByteBuffer back = ByteBuffer.allocate(data.length);
        done(io.read(333, back));
        assertArrayEquals(data, back.array());
        assertArrayEquals(data, target.contents(333, data.length));
    }

    @Test
    void withoutSqFlowControlAReadEndsWithItsLastDataPdu() throws Exception {
        NvmeTcpController c = connect(options().withSqFlowControlDisabled(true));
        assertEquals(List.of(1, 2), target.sqFlowDisabledQueues.stream().sorted().toList());
        NvmeNamespace ns = done(c.namespace(1));
        byte[] data = random(8192, 13);
        target.fill(0, data);
        ByteBuffer back = ByteBuffer.allocate(8192);
        done(ns.read(0, back));
        assertArrayEquals(data, back.array());
    }

    @Test
    void theControllerGrantingFewerQueuesOrEntriesIsRespected() throws Exception {
        target.grantedQueues = 1;
        target.mqes = 3;
        NvmeTcpController c = connect(options().withIoQueues(4, 128));
        assertEquals(1, c.ioQueueCount());
        NvmeNamespace ns = done(c.namespace(1));
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            writes.add(ns.write(i, ByteBuffer.wrap(random(512, 200 + i))));
        }
        done(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        assertArrayEquals(random(512, 249), target.contents(49 * SECTOR, 512));
    }

    @Test
    void keepAlivesGoOutWhileTheControllerIsIdle() throws Exception {
        connect(options().withKeepAlive(Duration.ofSeconds(1)));
        assertEquals(1000, target.lastKato);
        until("two Keep Alive commands arrive", () -> target.keepAlives.get() >= 2);
    }

    @Test
    void aKeepAliveThatGetsNoAnswerFailsTheController() throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults().withKeepAlive(Duration.ofSeconds(1))
                .withTimeouts(Duration.ofMillis(500), Duration.ofSeconds(5)));
        target.hook = cmd -> cmd.opcode() == Opcodes.ADMIN_KEEP_ALIVE ? new FakeTarget.Stall() : FakeTarget.NORMAL;
        NvmfException lost = done(c.failure());
        assertEquals(NvmfException.Kind.TIMEOUT, lost.kind());
        assertTrue(lost.getMessage().contains("Keep Alive") && lost.getMessage().contains("admin queue"),
                lost.getMessage());
        until("the I/O queues close with the admin queue", () -> c.liveIoQueues() == 0);
    }

    @Test
    void closeShutsTheControllerDownAndClosesEveryConnection() throws Exception {
        NvmeTcpController c = connect(options());
        until("three connections", () -> target.openConnections() == 3);
        c.close();
        assertEquals(1, target.shutdowns.get(), "CC.SHN was set");
        until("every connection closes", () -> target.openConnections() == 0);
        assertEquals(NvmfException.Kind.CONNECTION, done(c.failure()).kind());
        assertFalse(c.isAlive());
    }

    // ---- connection set-up failures ----

    @Test
    void aTargetThatIsNotThereIsAClearConnectionError() throws Exception {
        int port = target.port();
        target.close();
        NvmfException e = failure(NvmeTcpController.connect(new NvmeTcpEndpoint("127.0.0.1", port, FakeTarget.NQN),
                options(), loops));
        assertEquals(NvmfException.Kind.CONNECTION, e.kind());
        assertTrue(e.getMessage().contains("cannot connect admin queue of " + FakeTarget.NQN + " at 127.0.0.1:" + port),
                e.getMessage());
    }

    @Test
    void aSubsystemTheTargetDoesNotHaveIsRefusedByItsConnect() throws Exception {
        NvmfException e = failure(NvmeTcpController.connect(new NvmeTcpEndpoint("127.0.0.1", target.port(),
                "nqn.2024-01.io.creel:other"), options(), loops));
        assertEquals(NvmfException.Kind.STATUS, e.kind());
        assertTrue(e.getMessage().contains("Fabrics Connect of the admin queue failed")
                && e.getMessage().contains("Connect Invalid Host"), e.getMessage());
        until("the connection closes", () -> target.openConnections() == 0);
    }

    @Test
    void aControllerThatRefusesTheDigestsAskedForIsNotUsed() throws Exception {
        target.icRespDigestOverride = 0;
        NvmfException e = failure(NvmeTcpController.connect(target.endpoint(), options().withDigests(true, false),
                loops));
        assertEquals(NvmfException.Kind.PROTOCOL, e.kind());
        assertTrue(e.getMessage().contains("header digest on") && e.getMessage().contains("answered off"),
                e.getMessage());
        until("the connection closes", () -> target.openConnections() == 0);
        assertEquals(List.of("Unsupported Parameter FEI 11"), target.termReqs);
    }

    @Test
    void aControllerThatNeverBecomesReadyFailsConnectNamingCstsRdy() throws Exception {
        target.neverReady = true;
        NvmfException e = failure(NvmeTcpController.connect(target.endpoint(), options(), loops));
        assertEquals(NvmfException.Kind.TIMEOUT, e.kind());
        assertTrue(e.getMessage().contains("CSTS.RDY did not become 1 within 1000 ms"), e.getMessage());
        until("the connection closes", () -> target.openConnections() == 0);
    }

    @Test
    void commandsAfterCloseFailClearly() throws Exception {
        NvmeTcpController c = connect(options());
        NvmeNamespace ns = done(c.namespace(1));
        c.close();
        NvmfException e = failure(ns.read(0, ByteBuffer.allocate(512)));
        assertEquals(NvmfException.Kind.CONNECTION, e.kind());
        assertTrue(e.getMessage().contains("not sent") && e.getMessage().contains("closed by the host"),
                e.getMessage());
    }
}
