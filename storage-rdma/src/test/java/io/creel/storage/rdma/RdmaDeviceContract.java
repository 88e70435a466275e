package io.creel.storage.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.security.RpcSecurity;
import io.creel.common.security.SecurityKeys;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link RdmaDevice} does, as a specification run against each implementation: the
 * in-memory fake on any machine, DiSNI over soft-RoCE in the lab guest. A "server" device exports
 * registered memory through a listener; a "client" device connects and reads and writes it.
 */
public abstract class RdmaDeviceContract {
    /** Bounds every wait of these tests; never an assertion on how long something took. */
    protected static final long WAIT_SECONDS = 60;
    protected static final int REGION = 4 << 20;

    protected RdmaDevice server;
    protected RdmaDevice client;
    protected RdmaListener listener;
    protected RegisteredMemory exported;
    protected RegisteredMemory buffer;
    private final List<AutoCloseable> closeLater = new ArrayList<>();

    /** The implementation under test. */
    protected abstract RdmaProvider provider();

    /** Address of the server's device. */
    protected abstract InetAddress serverAddress();

    /** Address of the client's device (may equal the server's: a loopback connection). */
    protected abstract InetAddress clientAddress();

    /** Settings of both devices. */
    protected RdmaSettings settings() {
        return RdmaSettings.defaults().withQueueDepth(8);
    }

    @BeforeEach
    void openDevices() throws Exception {
        server = provider().open(serverAddress(), settings());
        client = provider().open(clientAddress(), settings());
        listener = server.listen(0);
        exported = server.register(ByteBuffer.allocateDirect(REGION), MemoryAccess.REMOTE_READ_WRITE);
        buffer = client.register(ByteBuffer.allocateDirect(REGION), MemoryAccess.LOCAL);
    }

    @AfterEach
    void closeDevices() throws Exception {
        for (AutoCloseable c : closeLater) {
            c.close();
        }
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    protected RdmaConnection connect() throws Exception {
        RdmaConnection c = client.connect(listener.localAddress()).get(WAIT_SECONDS, TimeUnit.SECONDS);
        closeLater.add(c);
        return c;
    }

    protected static void await(CompletableFuture<?> f) throws Exception {
        f.get(WAIT_SECONDS, TimeUnit.SECONDS);
    }

    protected static RdmaException failure(CompletableFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(WAIT_SECONDS, TimeUnit.SECONDS));
        RdmaException r = RdmaException.find(e);
        if (r == null) {
            throw new AssertionError("expected an RdmaException", e);
        }
        return r;
    }

    protected static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    protected static void put(RegisteredMemory m, int offset, byte[] bytes) {
        m.buffer().duplicate().clear().position(offset).put(bytes);
    }

    protected static byte[] get(RegisteredMemory m, int offset, int length) {
        byte[] b = new byte[length];
        m.buffer().duplicate().clear().position(offset).get(b);
        return b;
    }

    @Test
    void registeredMemoryPublishesItsRegionForPeers() {
        RemoteRegion r = exported.remote();
        assertEquals(REGION, r.length());
        assertEquals(exported.rkey(), r.rkey());
        assertEquals(REGION, exported.length());
        assertEquals(MemoryAccess.REMOTE_READ_WRITE, exported.access());
        assertTrue(exported.isOpen());
    }

    @Test
    void onlyNonEmptyDirectBuffersCanBeRegistered() {
        RdmaException heap = assertThrows(RdmaException.class,
                () -> client.register(ByteBuffer.allocate(64), MemoryAccess.LOCAL));
        assertEquals(RdmaException.Kind.INVALID_ARGUMENT, heap.kind());
        assertEquals(RdmaException.Kind.INVALID_ARGUMENT, assertThrows(RdmaException.class,
                () -> client.register(ByteBuffer.allocateDirect(0), MemoryAccess.LOCAL)).kind());
    }

    @Test
    void aWriteThenAReadMovesTheSameBytesBothWays() throws Exception {
        RdmaConnection c = connect();
        byte[] data = random(100_000, 1);
        put(buffer, 10, data);
        await(c.write(buffer, 10, exported.remote(), 4096, data.length));
        assertArrayEquals(data, get(exported, 4096, data.length), "the write landed in the server's memory");

        put(buffer, 500_000, new byte[data.length]);
        await(c.read(buffer, 500_000, exported.remote(), 4096, data.length));
        assertArrayEquals(data, get(buffer, 500_000, data.length), "the read brought the bytes back");
    }

    @Test
    void compareAndSwapReplacesTheWordOnlyWhenItHoldsTheExpectedValueAndReturnsThePreviousOne() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(server.atomics().available() && client.atomics().available(),
                "the devices have no atomic operations");
        RegisteredMemory words = server.register(ByteBuffer.allocateDirect(4096), MemoryAccess.REMOTE_ATOMIC);
        closeLater.add(words);
        words.buffer().order(java.nio.ByteOrder.nativeOrder()).putLong(64, 41);
        RdmaConnection c = connect();

        await(c.compareAndSwap(buffer, 0, words.remote(), 64, 40, 99, false));
        assertEquals(41, word(buffer, 0), "a mismatch returns the current value");
        assertEquals(41, word(words, 64), "and leaves the word alone");

        await(c.compareAndSwap(buffer, 8, words.remote(), 64, 41, 42, true));
        assertEquals(41, word(buffer, 8), "a match returns the previous value");
        assertEquals(42, word(words, 64), "and swaps");

        // A swap followed on the same connection by a read of that word sees the swap.
        await(c.compareAndSwap(buffer, 16, words.remote(), 64, 42, 0x0123_4567_89ab_cdefL, false));
        await(c.readFenced(buffer, 24, words.remote(), 64, 8));
        assertEquals(0x0123_4567_89ab_cdefL, word(buffer, 24));
    }

    @Test
    void aCompareAndSwapOnMemoryNotRegisteredForAtomicsIsRefusedByThePeer() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(client.atomics().available(), "the device has no atomics");
        RdmaConnection c = connect();
        RdmaException e = failure(c.compareAndSwap(buffer, 0, exported.remote(), 0, 0, 1, false));
        assertEquals(RdmaException.Kind.REMOTE_ACCESS, e.kind(), e.getMessage());
        assertFalse(c.isOpen());
    }

    @Test
    void aWriteFollowedByAReadOnTheSameConnectionIsPlacedWhenTheReadCompletes() throws Exception {
        RdmaConnection c = connect();
        for (int round = 0; round < 20; round++) {
            byte[] data = random(64 << 10, 100 + round);
            put(buffer, 0, data);
            CompletableFuture<Void> written = c.write(buffer, 0, exported.remote(), 8192, data.length);
            CompletableFuture<Void> readBack = c.read(buffer, 1 << 20, exported.remote(), 8192 + data.length - 8, 8);
            await(readBack);
            assertArrayEquals(java.util.Arrays.copyOfRange(data, data.length - 8, data.length), get(buffer, 1 << 20, 8),
                    "the read after the write saw its last bytes (round " + round + ")");
            assertArrayEquals(data, get(exported, 8192, data.length), "placed in the server's memory");
            await(written);
        }
    }

    @Test
    void aFencedReadSeesTheMemoryAfterTheEarlierReadsOfItsConnection() throws Exception {
        RdmaConnection c = connect();
        byte[] data = random(32 << 10, 7);
        put(exported, 0, data);
        List<CompletableFuture<Void>> all = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            all.add(c.read(buffer, i * 64, exported.remote(), 0, 8));
            all.add(c.readFenced(buffer, 8192 + i * data.length / 16, exported.remote(), (long) i * data.length / 16,
                    data.length / 16));
        }
        for (CompletableFuture<Void> f : all) {
            await(f);
        }
        assertArrayEquals(data, get(buffer, 8192, data.length));
    }

    protected static long word(RegisteredMemory m, int offset) {
        return m.buffer().duplicate().order(java.nio.ByteOrder.nativeOrder()).getLong(offset);
    }

    @Test
    void readsSeeWhatTheServerWroteLocally() throws Exception {
        RdmaConnection c = connect();
        byte[] data = random(8192, 2);
        put(exported, REGION - data.length, data);
        await(c.read(buffer, 0, exported.remote(), REGION - data.length, data.length));
        assertArrayEquals(data, get(buffer, 0, data.length));
    }

    @Test
    void manyOperationsInFlightBeyondTheQueueDepthAllComplete() throws Exception {
        RdmaConnection c = connect();
        int ops = settings().queueDepth() * 8;
        int size = 4096;
        byte[] data = random(ops * size, 3);
        put(exported, 0, data);
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (int i = 0; i < ops; i++) {
            reads.add(c.read(buffer, i * size, exported.remote(), (long) i * size, size));
        }
        assertTrue(c.inFlight() <= settings().queueDepth(), "never more than the depth posted: " + c.inFlight());
        await(CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)));
        assertArrayEquals(data, get(buffer, 0, data.length));
        assertEquals(0, c.inFlight());
    }

    @Test
    void aRangeOutsideTheRemoteRegionIsRefusedBeforePostingAndTheConnectionStaysUp() throws Exception {
        RdmaConnection c = connect();
        RdmaException e = failure(c.read(buffer, 0, exported.remote(), REGION - 100, 101));
        assertEquals(RdmaException.Kind.INVALID_ARGUMENT, e.kind());
        assertTrue(c.isOpen());
        await(c.read(buffer, 0, exported.remote(), 0, 100));
    }

    @Test
    void aWrongRemoteKeyIsARemoteAccessErrorThatBreaksTheConnection() throws Exception {
        RdmaConnection c = connect();
        RemoteRegion forged = new RemoteRegion(exported.remote().address(), REGION, exported.rkey() + 0x1000);
        RdmaException e = failure(c.read(buffer, 0, forged, 0, 64));
        assertEquals(RdmaException.Kind.REMOTE_ACCESS, e.kind());
        assertEquals(listener.localAddress(), e.peer());
        assertTrue(e.getMessage().contains(listener.localAddress().toString()), "names the server: " + e.getMessage());
        assertFalse(c.isOpen());
        RdmaException later = failure(c.read(buffer, 0, exported.remote(), 0, 64));
        assertEquals(RdmaException.Kind.REMOTE_ACCESS, later.kind(), "later calls fail with the original reason");
    }

    @Test
    void aWriteIntoReadOnlyMemoryIsRefusedByThePeer() throws Exception {
        RegisteredMemory readOnly = server.register(ByteBuffer.allocateDirect(4096), MemoryAccess.REMOTE_READ);
        put(readOnly, 0, random(4096, 4));
        RdmaConnection c = connect();
        await(c.read(buffer, 0, readOnly.remote(), 0, 4096));
        assertArrayEquals(get(readOnly, 0, 4096), get(buffer, 0, 4096));
        put(buffer, 0, new byte[4096]);
        assertEquals(RdmaException.Kind.REMOTE_ACCESS, failure(c.write(buffer, 0, readOnly.remote(), 0, 16)).kind());
        assertArrayEquals(random(4096, 4), get(readOnly, 0, 4096), "the read-only memory is unchanged");
    }

    @Test
    void memoryOfAnotherDeviceOrDeregisteredMemoryIsRefused() throws Exception {
        RdmaConnection c = connect();
        assertEquals(RdmaException.Kind.INVALID_ARGUMENT, failure(c.read(exported, 0, exported.remote(), 0, 8)).kind());
        RegisteredMemory gone = client.register(ByteBuffer.allocateDirect(4096), MemoryAccess.LOCAL);
        gone.close();
        gone.close();
        assertFalse(gone.isOpen());
        assertEquals(RdmaException.Kind.INVALID_ARGUMENT, failure(c.read(gone, 0, exported.remote(), 0, 8)).kind());
        assertTrue(c.isOpen());
    }

    /** A security with a cluster secret of {@code text} (a private file, as the key requires). */
    protected static RpcSecurity secret(String text) throws IOException {
        Path shm = Path.of("/dev/shm");
        Path dir = Files.isWritable(shm) ? Files.createTempDirectory(shm, "creel-rdma-contract")
                : Files.createTempDirectory("creel-rdma-contract");
        Path f = dir.resolve("secret");
        Files.writeString(f, text, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        RpcSecurity security = RpcSecurity.of(CreelConf.of(Map.of(SecurityKeys.SECRET_FILE.name(), f.toString())));
        Files.delete(f);
        Files.delete(dir);
        return security;
    }

    @Test
    void aListenerWithTheClusterSecretAdmitsOnlyClientsThatProveItInConnectionSetup() throws Exception {
        RpcSecurity cluster = secret("the cluster's secret, 32 bytes long");
        ConnectionAdmission.Gate gate = new ConnectionAdmission.Gate(cluster, "the test exporter", System::nanoTime);
        RdmaListener secured = server.listen(0, gate);
        closeLater.add(secured);

        RdmaConnection c = client.connect(secured.localAddress(), cluster.clientAuthentication())
                .get(WAIT_SECONDS, TimeUnit.SECONDS);
        closeLater.add(c);
        byte[] data = random(4096, 9);
        put(buffer, 0, data);
        await(c.write(buffer, 0, exported.remote(), 0, data.length));
        assertArrayEquals(data, get(exported, 0, data.length), "an admitted client reads and writes as any other");

        RdmaException none = failure(client.connect(secured.localAddress()));
        assertEquals(RdmaException.Kind.REFUSED, none.kind(), none.getMessage());
        assertTrue(none.getMessage().contains("the test exporter requires authentication: set "
                + SecurityKeys.SECRET_FILE.name()), none.getMessage());

        RdmaException wrong = failure(client.connect(secured.localAddress(),
                secret("some other cluster's secret value").clientAuthentication()));
        assertEquals(RdmaException.Kind.REFUSED, wrong.kind(), wrong.getMessage());
        assertTrue(wrong.getMessage().contains("its proof of the cluster secret is wrong"), wrong.getMessage());

        eventually(() -> secured.connectionCount() == 1, "only the admitted client stays connected");
        assertEquals(0, gate.outstanding(), "every challenge was answered and used");
    }

    @Test
    void aClientWithTheClusterSecretRefusesAListenerThatDoesNotCheckIt() throws Exception {
        RdmaListener open = server.listen(0, new ConnectionAdmission.Gate(RpcSecurity.none(), "the open exporter",
                System::nanoTime));
        closeLater.add(open);
        RdmaException e = failure(client.connect(open.localAddress(),
                secret("the cluster's secret, 32 bytes long").clientAuthentication()));
        assertEquals(RdmaException.Kind.REFUSED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("the open exporter does not authenticate"), e.getMessage());
        connectOpenly(open); // ... and still serves clients without a secret
    }

    private void connectOpenly(RdmaListener open) throws Exception {
        RdmaConnection c = client.connect(open.localAddress()).get(WAIT_SECONDS, TimeUnit.SECONDS);
        closeLater.add(c);
        assertTrue(c.isOpen());
    }

    @Test
    void connectingWhereNothingListensFailsNamingThePeer() throws Exception {
        InetSocketAddress nobody = new InetSocketAddress(serverAddress(), listener.localAddress().getPort() + 1);
        RdmaException e = failure(client.connect(nobody));
        assertEquals(RdmaException.Kind.UNREACHABLE, e.kind());
        assertEquals(nobody, e.peer());
        assertTrue(e.getMessage().contains(nobody.toString()), e.getMessage());
    }

    @Test
    void theListenerCountsItsPeersAndDisconnectsThemWhenClosed() throws Exception {
        RdmaConnection a = connect();
        RdmaConnection b = connect();
        assertNotEquals(a, b);
        eventually(() -> listener.connectionCount() == 2, "two peers connected");
        listener.close();
        eventually(() -> !a.isOpen() && !b.isOpen(), "both peers saw the disconnect");
        RdmaException e = failure(a.read(buffer, 0, exported.remote(), 0, 8));
        assertEquals(RdmaException.Kind.UNREACHABLE, e.kind());
        assertTrue(e.getMessage().contains(listener.localAddress().toString()), e.getMessage());
    }

    @Test
    void aClosedConnectionRefusesWorkAndTheServerForgetsIt() throws Exception {
        RdmaConnection c = connect();
        eventually(() -> listener.connectionCount() == 1, "the peer connected");
        c.close();
        assertFalse(c.isOpen());
        assertEquals(RdmaException.Kind.CLOSED, failure(c.read(buffer, 0, exported.remote(), 0, 8)).kind());
        eventually(() -> listener.connectionCount() == 0, "the server saw the disconnect");
    }

    @Test
    void aClosedDeviceRefusesEverything() throws Exception {
        client.close();
        assertFalse(client.isOpen());
        assertEquals(RdmaException.Kind.CLOSED, failure(client.connect(listener.localAddress())).kind());
        assertEquals(RdmaException.Kind.CLOSED, assertThrows(RdmaException.class,
                () -> client.register(ByteBuffer.allocateDirect(64), MemoryAccess.LOCAL)).kind());
        assertFalse(buffer.isOpen(), "closing the device deregistered its memory");
        client.close();
    }

    @Test
    void theDeviceCanBeClosedFromACompletionCallback() throws Exception {
        RdmaConnection c = connect();
        CompletableFuture<Void> closedInside = c.read(buffer, 0, exported.remote(), 0, 64).thenRun(client::close);
        await(closedInside);
        assertFalse(client.isOpen());
        assertFalse(c.isOpen());
    }

    @Test
    void theDeviceCanBeClosedFromAConnectCallback() throws Exception {
        CompletableFuture<Void> closedInside = client.connect(listener.localAddress()).thenAccept(c -> client.close());
        await(closedInside);
        assertFalse(client.isOpen());
    }

    /** Waits (bounded) for a condition that another thread makes true. */
    protected static void eventually(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("not within " + WAIT_SECONDS + " s: " + what);
            }
            Thread.sleep(10);
        }
    }
}
