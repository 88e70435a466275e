package io.creel.storage.nvmf.tcp;

import static io.creel.storage.nvmf.tcp.Await.done;
import static io.creel.storage.nvmf.tcp.Await.failure;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.nvmf.NvmfException;
import io.creel.storage.nvmf.io.ByteRangeIo;
import io.creel.storage.nvmf.io.SequentialAppender;
import io.creel.storage.nvmf.nvme.DataDirection;
import io.creel.storage.nvmf.nvme.NvmeCommand;
import io.creel.storage.nvmf.nvme.NvmeCommands;
import io.creel.storage.nvmf.nvme.Opcodes;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The initiator against a real NVMe/TCP target (the Linux kernel's nvmet in the lab guest; see
 * {@link RealTarget} for how to point it elsewhere). Namespace 1 must keep what is written to it
 * (the lab's {@code LAB_NS=ram}); the tests write its first 48 MiB, each its own byte range.
 */
class RealTargetTest {
    private static final int NSID = 1;
    private static NvmeTcpEndpoint endpoint;
    private static NvmeTcpEventLoops loops;
    private final List<NvmeTcpController> controllers = new ArrayList<>();

    /** Why the target cannot be used, or null. */
    private static String unusable;

    @BeforeAll
    static void probeTarget() throws Exception {
        endpoint = RealTarget.endpoint();
        unusable = RealTarget.unreachable(endpoint);
        if (unusable != null) {
            return;
        }
        try (NvmeTcpEventLoops probeLoops = NvmeTcpEventLoops.nio(1, "real-target-probe");
             NvmeTcpController c = done(NvmeTcpController.connect(endpoint, NvmeTcpOptions.defaults(), probeLoops))) {
            NvmeNamespace ns = done(c.namespace(NSID));
            // the last sector, put back as it was: the target may be someone else's
            long last = ns.sectorCount() - 1;
            ByteBuffer original = ByteBuffer.allocate(ns.sectorSize());
            done(ns.read(last, original));
            byte[] probe = random(ns.sectorSize(), System.nanoTime());
            done(ns.write(last, ByteBuffer.wrap(probe)));
            ByteBuffer back = ByteBuffer.allocate(probe.length);
            done(ns.read(last, back));
            done(ns.write(last, original));
            if (!Arrays.equals(probe, back.array())) {
                unusable = "namespace " + NSID + " of " + endpoint + " does not keep what is written (a null_blk "
                        + "device?); start the lab with LAB_NS=ram";
                return;
            }
        }
        loops = NvmeTcpEventLoops.nio(2, "real-target");
    }

    @BeforeEach
    void requireTarget() {
        if (unusable != null) {
            RealTarget.unusable(unusable);
        }
    }

    @AfterAll
    static void closeLoops() {
        if (loops != null) {
            loops.close();
        }
    }

    @AfterEach
    void closeControllers() {
        controllers.forEach(NvmeTcpController::close);
    }

    private NvmeTcpController connect(NvmeTcpOptions options) throws Exception {
        return connect(endpoint, options);
    }

    private NvmeTcpController connect(NvmeTcpEndpoint at, NvmeTcpOptions options) throws Exception {
        NvmeTcpController c = done(NvmeTcpController.connect(at, options, loops));
        controllers.add(c);
        return c;
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] read(ByteRangeIo io, long offset, int length) throws Exception {
        ByteBuffer b = ByteBuffer.allocate(length);
        done(io.read(offset, b));
        return b.array();
    }

    @Test
    void connectsAndIdentifiesTheControllerAndTheNamespace() throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults());
        assertTrue(c.identity().model().length() > 0);
        assertEquals(endpoint.subsystemNqn(), c.identity().subsystemNqn());
        assertTrue(done(c.activeNamespaces()).contains(NSID));
        NvmeNamespace ns = done(c.namespace(NSID));
        assertTrue(ns.sectorSize() == 512 || ns.sectorSize() == 4096, "sector size " + ns.sectorSize());
        assertTrue(ns.sectorCount() > 0);
        assertEquals(0, ns.maxTransferBytes() % ns.sectorSize());
        assertEquals(2, c.liveIoQueues());
    }

    @Test
    void readsAndWritesOfEveryAlignmentLandExactlyWhereAsked() throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults());
        ByteRangeIo io = new ByteRangeIo(done(c.namespace(NSID)));
        long base = 1 << 20;
        int window = 256 * 1024;
        byte[] model = random(window, 1);
        done(io.write(base, ByteBuffer.wrap(model)));
        Random rnd = new Random(2);
        int[] offsets = {0, 1, 255, 511, 512, 513, 1000, 4095, 4096, 4097, 65537};
        int[] lengths = {1, 2, 100, 511, 512, 513, 1023, 1024, 4096, 4097, 65536, 70001};
        for (int off : offsets) {
            for (int len : lengths) {
                byte[] data = new byte[len];
                rnd.nextBytes(data);
                done(io.write(base + off, ByteBuffer.wrap(data)));
                System.arraycopy(data, 0, model, off, len);
                assertArrayEquals(data, read(io, base + off, len), len + " bytes at " + off);
            }
        }
        assertArrayEquals(model, read(io, base, window), "no byte around the writes was disturbed");
    }

    @ParameterizedTest(name = "max transfer {0}")
    @CsvSource({"1048576", "131072"})
    void transfersUpToAndBeyondTheLargestCommandRoundTrip(int maxTransfer) throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults().withMaxTransferBytes(maxTransfer));
        NvmeNamespace ns = done(c.namespace(NSID));
        int max = ns.maxTransferBytes();
        assertEquals(Math.min(maxTransfer, c.maxTransferBytes()), max);
        long base = 8L << 20;
        // one command of exactly the largest transfer
        byte[] one = random(max, 3);
        done(ns.write(base / ns.sectorSize(), ByteBuffer.wrap(one)));
        ByteBuffer back = ByteBuffer.allocateDirect(max);
        done(ns.read(base / ns.sectorSize(), back));
        byte[] got = new byte[max];
        back.get(got);
        assertArrayEquals(one, got);
        // one sector more is refused by the namespace, and split by ByteRangeIo
        assertEquals(NvmfException.Kind.INVALID_ARGUMENT,
                failure(ns.write(0, ByteBuffer.allocate(max + ns.sectorSize()))).kind());
        ByteRangeIo io = new ByteRangeIo(ns);
        for (int len : new int[] {max - 1, max + 1, max + ns.sectorSize(), 3 * max + 777}) {
            byte[] data = random(len, len);
            done(io.write(base + 100, ByteBuffer.wrap(data)));
            assertArrayEquals(data, read(io, base + 100, len), len + " bytes");
        }
        done(ns.flush());
    }

    @Test
    void manyCommandsInFlightOnSeveralQueues() throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults().withIoQueues(4, 32));
        assertEquals(4, c.liveIoQueues());
        NvmeNamespace ns = done(c.namespace(NSID));
        long first = (16L << 20) / ns.sectorSize();
        int blocks = 4096 / ns.sectorSize();
        int n = 1000;
        List<CompletableFuture<Void>> writes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            writes.add(ns.write(first + (long) i * blocks, ByteBuffer.wrap(random(4096, 1000 + i))));
        }
        done(CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)));
        List<ByteBuffer> backs = new ArrayList<>();
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ByteBuffer b = ByteBuffer.allocate(4096);
            backs.add(b);
            reads.add(ns.read(first + (long) i * blocks, b));
        }
        done(CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)));
        for (int i = 0; i < n; i++) {
            assertArrayEquals(random(4096, 1000 + i), backs.get(i).array(), "block " + i);
        }
    }

    @ParameterizedTest(name = "header digest {0}, data digest {1}, SQ flow control off {2}")
    @CsvSource({"false,false,false", "true,false,false", "false,true,false", "true,true,false", "false,false,true",
            "true,true,true"})
    void dataRoundTripsInTheCapsuleAndThroughR2tWithAndWithoutDigests(boolean header, boolean data, boolean noSqFlow)
            throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults().withDigests(header, data)
                .withSqFlowControlDisabled(noSqFlow));
        assertEquals(header, c.headerDigest());
        assertEquals(data, c.dataDigest());
        ByteRangeIo io = new ByteRangeIo(done(c.namespace(NSID)));
        long base = 24L << 20;
        int at = 0;
        // up to the capsule size (16 KiB at nvmet) in the capsule, beyond it through R2T and H2CData
        for (int len : new int[] {512, 8192, 16384, 16896, 65536, 1 << 20, 3000, 300_000}) {
            byte[] bytes = random(len, len * 31L + (header ? 1 : 0) + (data ? 2 : 0));
            done(io.write(base + at, ByteBuffer.wrap(bytes)));
            assertArrayEquals(bytes, read(io, base + at, len), len + " bytes");
            at += len + 1;
        }
    }

    @Test
    void theTargetsErrorStatusesComeBackNamed() throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults());
        NvmeNamespace ns = done(c.namespace(NSID));
        NvmfException range = failure(c.io(NvmeCommands.read(NSID, ns.sectorCount() - 1, 2,
                ByteBuffer.allocate(2 * ns.sectorSize()))));
        // nvmet 6.1 answers Internal Error here (its block device fails the bio), later kernels LBA Out of Range
        assertEquals(NvmfException.Kind.STATUS, range.kind());
        assertTrue(range.getMessage().contains("Read nsid 1 slba " + (ns.sectorCount() - 1))
                && range.getMessage().contains(range.status().orElseThrow().name())
                && range.getMessage().contains(endpoint.toString()), range.getMessage());
        NvmfException cns = failure(c.adminCommand(NvmeCommand.withData(Opcodes.ADMIN_IDENTIFY, 0, 0x7F, 0, 0, 0,
                0, 0, DataDirection.CONTROLLER_TO_HOST, ByteBuffer.allocate(4096))));
        assertEquals(NvmfException.Kind.STATUS, cns.kind());
        assertTrue(cns.getMessage().contains("Identify cns 127"), cns.getMessage());
        NvmfException missing = failure(c.namespace(99));
        assertTrue(missing.getMessage().contains("99"), missing.getMessage());
        assertEquals(2, c.liveIoQueues(), "error statuses leave the queues open");
    }

    @Test
    void keepAlivesKeepAnIdleControllerConnected() throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults().withKeepAlive(Duration.ofSeconds(1)));
        NvmeNamespace ns = done(c.namespace(NSID));
        // without Keep Alive the target would drop a controller idle for over its 1 s KATO
        Thread.sleep(3500);
        assertTrue(c.isAlive());
        done(ns.read(0, ByteBuffer.allocate(ns.sectorSize())));
    }

    @Test
    void aTargetThatDisappearsMidCommandFailsItWithAConnectionError() throws Exception {
        try (TcpProxy proxy = new TcpProxy(endpoint.host(), endpoint.port())) {
            NvmeTcpController c = connect(new NvmeTcpEndpoint("127.0.0.1", proxy.port(), endpoint.subsystemNqn()),
                    NvmeTcpOptions.defaults().withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(5)));
            ByteRangeIo io = new ByteRangeIo(done(c.namespace(NSID)), 4);
            CompletableFuture<Void> big = io.read(0, ByteBuffer.allocate(64 << 20));
            proxy.cut();
            NvmfException e = failure(big);
            assertEquals(NvmfException.Kind.CONNECTION, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("Read nsid 1"), e.getMessage());
            assertEquals(NvmfException.Kind.CONNECTION, done(c.failure()).kind());
        }
    }

    @Test
    void aTargetThatGoesSilentMidCommandFailsItWithinTheCommandTimeout() throws Exception {
        try (TcpProxy proxy = new TcpProxy(endpoint.host(), endpoint.port())) {
            NvmeTcpController c = connect(new NvmeTcpEndpoint("127.0.0.1", proxy.port(), endpoint.subsystemNqn()),
                    NvmeTcpOptions.defaults().withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(5)));
            NvmeNamespace ns = done(c.namespace(NSID));
            ByteRangeIo io = new ByteRangeIo(ns, 4);
            CompletableFuture<Void> big = io.read(0, ByteBuffer.allocate(64 << 20));
            proxy.blackhole();
            NvmfException e = failure(big);
            assertEquals(NvmfException.Kind.TIMEOUT, e.kind(), e.getMessage());
            assertTrue(e.getMessage().contains("within 1000 ms"), e.getMessage());
        }
    }

    @Test
    void aSequentialAppenderWritesWhatAFlatArrayWouldHold() throws Exception {
        NvmeTcpController c = connect(NvmeTcpOptions.defaults());
        ByteRangeIo io = new ByteRangeIo(done(c.namespace(NSID)));
        long start = (32L << 20) + 123;
        byte[] before = read(io, start - 123, 123);
        SequentialAppender a = done(SequentialAppender.open(io, start, 40L << 20));
        Random rnd = new Random(5);
        byte[] all = new byte[200_000];
        rnd.nextBytes(all);
        for (int at = 0; at < all.length; ) {
            int n = Math.min(all.length - at, 1 + rnd.nextInt(5000));
            done(a.append(ByteBuffer.wrap(all, at, n)));
            at += n;
        }
        done(a.flush());
        assertArrayEquals(all, read(io, start, all.length));
        assertArrayEquals(before, read(io, start - 123, 123), "the bytes before the start are kept");
    }
}
