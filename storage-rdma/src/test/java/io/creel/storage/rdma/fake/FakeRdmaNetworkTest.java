package io.creel.storage.rdma.fake;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDeviceContract;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaException.Kind;
import io.creel.storage.rdma.RdmaProvider;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.inflight.OneSidedConnection;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The device contract on the in-memory fake, plus the failures only the fake can stage on demand. */
class FakeRdmaNetworkTest extends RdmaDeviceContract {
    private final AtomicLong clock = new AtomicLong(0);
    private final FakeRdmaNetwork network = new FakeRdmaNetwork(clock::get);

    @Override
    protected RdmaProvider provider() {
        return network;
    }

    @Override
    protected InetAddress serverAddress() {
        return address("10.0.0.1");
    }

    @Override
    protected InetAddress clientAddress() {
        return address("10.0.0.2");
    }

    @Override
    protected RdmaSettings settings() {
        return super.settings().withOperationTimeout(Duration.ofMillis(500)).withConnectTimeout(Duration.ofMillis(300));
    }

    @AfterEach
    void closeNetwork() {
        network.close();
    }

    private static InetAddress address(String ip) {
        try {
            return InetAddress.getByName(ip);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void pausedTransfersStayInFlightUpToTheDepthAndTheRestWait() throws Exception {
        RdmaConnection c = connect();
        network.pauseCompletions();
        int depth = settings().queueDepth();
        List<CompletableFuture<Void>> f = new ArrayList<>();
        for (int i = 0; i < depth + 5; i++) {
            f.add(c.read(buffer, 0, exported.remote(), 0, 8));
        }
        assertEquals(depth, c.inFlight());
        assertEquals(5, ((OneSidedConnection) c).waiting());
        assertEquals(depth, network.heldTransfers());
        network.resumeCompletions();
        await(CompletableFuture.allOf(f.toArray(CompletableFuture[]::new)));
        assertEquals(0, c.inFlight());
    }

    @Test
    void aServerThatCrashesMidReadFailsTheReadsNamingIt() throws Exception {
        RdmaConnection c = connect();
        network.pauseCompletions();
        CompletableFuture<Void> read = c.read(buffer, 0, exported.remote(), 0, 4096);
        network.crash(serverAddress());
        network.resumeCompletions();
        RdmaException e = failure(read);
        assertEquals(Kind.UNREACHABLE, e.kind());
        assertTrue(e.getMessage().contains(listener.localAddress().toString()), e.getMessage());
        assertFalse(c.isOpen());
        assertEquals(Kind.UNREACHABLE, failure(c.read(buffer, 0, exported.remote(), 0, 8)).kind(),
                "later reads fail at once");
    }

    @Test
    void aSilentServerTimesOutOnlyWhenTheDeadlinePasses() throws Exception {
        RdmaConnection c = connect();
        network.silence(serverAddress());
        CompletableFuture<Void> read = c.read(buffer, 0, exported.remote(), 0, 64);
        network.sweep();
        assertFalse(read.isDone(), "the deadline has not passed");
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(501));
        network.sweep();
        RdmaException e = failure(read);
        assertEquals(Kind.TIMEOUT, e.kind());
        assertTrue(e.getMessage().contains("did not complete within 500 ms"), e.getMessage());
        assertTrue(e.getMessage().contains(listener.localAddress().toString()), e.getMessage());
    }

    @Test
    void aConnectToASilentMachineTimesOut() throws Exception {
        network.silence(serverAddress());
        CompletableFuture<RdmaConnection> f = client.connect(listener.localAddress());
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(301));
        network.sweep();
        RdmaException e = failure(f);
        assertEquals(Kind.TIMEOUT, e.kind());
        assertEquals("connect to " + listener.localAddress() + " did not complete within 300 ms", e.getMessage());
    }

    @Test
    void aTimedOutReadNeverWritesIntoTheBufferAfterItsFutureFailed() throws Exception {
        RdmaConnection c = connect();
        put(exported, 0, random(64, 9));
        network.pauseCompletions();
        CompletableFuture<Void> read = c.read(buffer, 0, exported.remote(), 0, 64);
        clock.addAndGet(TimeUnit.MILLISECONDS.toNanos(501));
        network.sweep();
        assertEquals(Kind.TIMEOUT, failure(read).kind());
        put(buffer, 0, new byte[64]); // the caller reuses its buffer at once
        network.resumeCompletions(); // the late transfer arrives
        network.drain();
        assertArrayEquals(new byte[64], get(buffer, 0, 64), "the aborted transfer did not land");
    }

    @Test
    void aDeviceCanBeOpenedOncePerAddress() {
        RdmaException e = assertThrows(RdmaException.class, () -> network.open(serverAddress(), settings()));
        assertEquals(Kind.NOT_AVAILABLE, e.kind());
        assertTrue(e.getMessage().contains("10.0.0.1"), e.getMessage());
    }

    @Test
    void connectingToAnAddressWithoutADeviceNamesIt() throws Exception {
        RdmaException e = failure(client.connect(new InetSocketAddress(address("10.0.0.99"), 1)));
        assertEquals(Kind.UNREACHABLE, e.kind());
        assertTrue(e.getMessage().contains("no RDMA device answers at 10.0.0.99"), e.getMessage());
    }

    @Test
    void theListenPortCanOnlyBeTakenOnce() throws Exception {
        int port = listener.localAddress().getPort();
        RdmaException e = assertThrows(RdmaException.class, () -> server.listen(port));
        assertTrue(e.getMessage().contains("in use"), e.getMessage());
        assertTrue(server.register(ByteBuffer.allocateDirect(1), MemoryAccess.LOCAL).isOpen());
    }
}
