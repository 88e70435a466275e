package io.creel.storage.rdma.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.RemoteRegion;
import io.creel.storage.rdma.disni.DisniRdmaProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A server process killed (SIGKILL) while a client streams one-sided reads from it: the reads fail
 * with an error naming the server, by the transport noticing, not by waiting out the deadline.
 */
@RdmaLab
class ServerKilledMidReadLabTest {
    private static final int REGION = 8 << 20;
    private static final int READ = 256 << 10;
    private Process server;

    @AfterEach
    void killTheServer() throws InterruptedException {
        if (server != null) {
            server.destroyForcibly();
            server.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void readsFromAKilledServerFailFastNamingIt() throws Exception {
        InetAddress address = LabEnvironment.requireRdma();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        server = new ProcessBuilder(java, "--add-exports", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-Djava.library.path=" + System.getProperty("java.library.path"),
                "-Dorg.slf4j.simpleLogger.log.com.ibm=warn",
                "-cp", System.getProperty("java.class.path"), ExportingServer.class.getName(),
                address.getHostAddress(), Integer.toString(REGION))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        String ready = CompletableFuture.supplyAsync(() -> {
            try {
                return out.readLine();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }).get(180, TimeUnit.SECONDS);
        String[] f = ready == null ? new String[0] : ready.split(" ");
        assertEquals("READY", f.length == 5 ? f[0] : "server said: " + ready);
        InetSocketAddress serverAddress = new InetSocketAddress(address, Integer.parseInt(f[1]));
        RemoteRegion region = new RemoteRegion(Long.parseLong(f[2]), Long.parseLong(f[4]), Integer.parseInt(f[3]));

        // A deadline far beyond the wait below: a failure must come from the transport, not from it.
        RdmaSettings settings = RdmaSettings.defaults().withQueueDepth(8).withOperationTimeout(Duration.ofMinutes(10));
        try (RdmaDevice client = new DisniRdmaProvider().open(address, settings)) {
            RegisteredMemory buffer = client.register(ByteBuffer.allocateDirect(8 * READ), MemoryAccess.LOCAL);
            RdmaConnection c = client.connect(serverAddress).get(60, TimeUnit.SECONDS);
            c.read(buffer, 0, region, READ, READ).get(60, TimeUnit.SECONDS);
            byte[] got = new byte[16];
            buffer.buffer().get(0, got);
            byte[] expected = new byte[16];
            for (int i = 0; i < 16; i++) {
                expected[i] = (byte) ((READ + i) * 31 + 7);
            }
            assertArrayEquals(expected, got, "the server's bytes arrived before it was killed");

            ArrayDeque<CompletableFuture<Void>> inFlight = new ArrayDeque<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            int completed = 0;
            RdmaException failure = null;
            for (int i = 0; failure == null; i++) {
                if (System.nanoTime() - deadline > 0) {
                    fail("no read failed within 120 s of killing " + serverAddress);
                }
                while (inFlight.size() < 8) {
                    inFlight.add(c.read(buffer, (i % 8) * READ, region, (long) (i % (REGION / READ)) * READ, READ));
                }
                CompletableFuture<Void> next = inFlight.poll();
                try {
                    next.get(120, TimeUnit.SECONDS);
                    if (++completed == 16) {
                        server.destroyForcibly(); // SIGKILL: no goodbye from the server
                    }
                } catch (ExecutionException e) {
                    failure = RdmaException.find(e);
                    assertTrue(failure != null, "not an RdmaException: " + e.getCause());
                }
            }
            assertTrue(completed >= 16, "the server was killed mid-stream, after " + completed + " reads");
            assertNotEquals(RdmaException.Kind.TIMEOUT, failure.kind(), failure.getMessage());
            assertEquals(RdmaException.Kind.UNREACHABLE, failure.kind(), failure.getMessage());
            assertEquals(serverAddress, failure.peer());
            assertTrue(failure.getMessage().contains(serverAddress.toString()), failure.getMessage());
            assertFalse(c.isOpen());
            for (CompletableFuture<Void> rest : List.copyOf(inFlight)) {
                try {
                    rest.get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    assertNotEquals(RdmaException.Kind.TIMEOUT, RdmaException.find(e).kind());
                }
            }
            CompletableFuture<Void> later = c.read(buffer, 0, region, 0, 8);
            assertTrue(later.isCompletedExceptionally(), "later reads fail at once, without posting");
        }
    }
}
