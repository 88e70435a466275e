package io.creel.storage.rdma.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.ibm.darpc.DaRPCClientEndpoint;
import com.ibm.darpc.DaRPCClientGroup;
import com.ibm.darpc.DaRPCFuture;
import com.ibm.darpc.DaRPCMessage;
import com.ibm.darpc.DaRPCProtocol;
import com.ibm.darpc.DaRPCServerEndpoint;
import com.ibm.darpc.DaRPCServerEvent;
import com.ibm.darpc.DaRPCServerGroup;
import com.ibm.darpc.DaRPCService;
import com.ibm.darpc.DaRPCStream;
import com.ibm.disni.RdmaServerEndpoint;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * DaRPC 1.9, unchanged, over Creel's libdisni.so: a request/response service on rxe0 answering a
 * client's pipelined calls (RDMA SEND/RECV with DaRPC's own buffers and completion handling).
 */
@RdmaLab
class DaRpcLabTest {
    private static final int PAYLOAD = 1000;
    /** DaRPC's connection-manager and completion waits; positive so its groups can close. */
    private static final int DARPC_TIMEOUT_MS = 1000;

    /** A request: a call number and bytes whose checksum the server returns. */
    static final class Request implements DaRPCMessage {
        int call;
        final byte[] payload = new byte[PAYLOAD];

        @Override
        public int write(ByteBuffer buffer) {
            buffer.putInt(call);
            buffer.put(payload);
            return size();
        }

        @Override
        public void update(ByteBuffer buffer) {
            call = buffer.getInt();
            buffer.get(payload);
        }

        @Override
        public int size() {
            return 4 + PAYLOAD;
        }
    }

    /** A response: the call number and the CRC32 of the request's bytes. */
    static final class Response implements DaRPCMessage {
        int call;
        long crc;

        @Override
        public int write(ByteBuffer buffer) {
            buffer.putInt(call);
            buffer.putLong(crc);
            return size();
        }

        @Override
        public void update(ByteBuffer buffer) {
            call = buffer.getInt();
            crc = buffer.getLong();
        }

        @Override
        public int size() {
            return 12;
        }
    }

    static class Protocol implements DaRPCProtocol<Request, Response> {
        @Override
        public Request createRequest() {
            return new Request();
        }

        @Override
        public Response createResponse() {
            return new Response();
        }
    }

    static final class ChecksumService extends Protocol implements DaRPCService<Request, Response> {
        final AtomicInteger served = new AtomicInteger();
        final AtomicInteger opened = new AtomicInteger();

        @Override
        public void processServerEvent(DaRPCServerEvent<Request, Response> event) throws IOException {
            CRC32 crc = new CRC32();
            crc.update(event.getReceiveMessage().payload);
            event.getSendMessage().call = event.getReceiveMessage().call;
            event.getSendMessage().crc = crc.getValue();
            served.incrementAndGet();
            event.triggerResponse();
        }

        @Override
        public void open(DaRPCServerEndpoint<Request, Response> endpoint) {
            opened.incrementAndGet();
        }

        @Override
        public void close(DaRPCServerEndpoint<Request, Response> endpoint) {
        }
    }

    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "darpc-lab");
        t.setDaemon(true); // DiSNI's accept waits without a timeout; never keep the JVM alive for it
        return t;
    });
    private DaRPCServerGroup<Request, Response> serverGroup;
    private DaRPCClientGroup<Request, Response> clientGroup;
    private DaRPCClientEndpoint<Request, Response> client;

    @AfterEach
    void closeGroups() throws Exception {
        // DaRPC's close paths wait on DiSNI; bound them so a hang fails the test instead of the run.
        CompletableFuture.runAsync(() -> {
            try {
                if (client != null) {
                    client.close();
                }
                if (clientGroup != null) {
                    clientGroup.close();
                }
                if (serverGroup != null) {
                    serverGroup.close();
                }
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException("closing DaRPC failed", e);
            }
        }, threads).get(60, TimeUnit.SECONDS);
        threads.shutdownNow();
    }

    @Test
    void aClientsPipelinedCallsAreAnsweredInOrderWithTheRightChecksums() throws Exception {
        InetAddress address = LabEnvironment.requireRdma();
        ChecksumService service = new ChecksumService();
        serverGroup = DaRPCServerGroup.createServerGroup(service, new long[] {1L}, DARPC_TIMEOUT_MS, 0, false, 16, 16,
                16, 1);
        RdmaServerEndpoint<DaRPCServerEndpoint<Request, Response>> listener = serverGroup.createServerEndpoint();
        listener.bind(new InetSocketAddress(address, 0), 16);
        InetSocketAddress bound = (InetSocketAddress) listener.getSrcAddr();
        threads.execute(() -> {
            try {
                while (true) {
                    listener.accept();
                }
            } catch (IOException e) {
                // the listener closed
            }
        });

        clientGroup = DaRPCClientGroup.createClientGroup(new Protocol(), DARPC_TIMEOUT_MS, 0, 16, 16);
        client = clientGroup.createEndpoint();
        CompletableFuture.runAsync(() -> {
            try {
                client.connect(bound, DARPC_TIMEOUT_MS * 10);
            } catch (Exception e) {
                throw new IllegalStateException("DaRPC connect to " + bound + " failed", e);
            }
        }, threads).get(60, TimeUnit.SECONDS);

        DaRPCStream<Request, Response> stream = client.createStream();
        int calls = 200;
        int window = 8;
        List<DaRPCFuture<Request, Response>> pending = new ArrayList<>();
        List<Long> expected = new ArrayList<>();
        for (int i = 0; i < calls; i++) {
            Request request = new Request();
            request.call = i;
            for (int b = 0; b < PAYLOAD; b++) {
                request.payload[b] = (byte) (i * 7 + b);
            }
            CRC32 crc = new CRC32();
            crc.update(request.payload);
            expected.add(crc.getValue());
            pending.add(stream.request(request, new Response(), false));
            if (pending.size() == window || i == calls - 1) {
                for (DaRPCFuture<Request, Response> f : pending) {
                    // DaRPC reads the number as milliseconds whatever the unit says.
                    Response r = f.get(30_000, TimeUnit.MILLISECONDS);
                    assertEquals(f.getSendMessage().call, r.call, "the answer belongs to its call");
                    assertEquals(expected.get(r.call), r.crc, "checksum of call " + r.call);
                }
                pending.clear();
            }
        }
        assertEquals(calls, service.served.get());
        assertTrue(service.opened.get() >= 1, "the service saw the client's endpoint open");
    }
}
