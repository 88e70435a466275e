package io.creel.minicluster.cluster;

import io.creel.common.net.HostPort;
import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Opcode;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP relay in front of a server that counts the requests passing through it by opcode:
 * how a test sees how many round trips an operation really costs. Each connection is relayed by two
 * threads; requests are cut at frame boundaries as they go towards the server.
 */
final class RequestCounter implements AutoCloseable {
    private final HostPort target;
    private final ServerSocket listener;
    private final Map<Opcode, AtomicInteger> counts = new ConcurrentHashMap<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    RequestCounter(HostPort target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::acceptLoop, "request-counter-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Where clients connect instead of the server. */
    String address() {
        return "creel://127.0.0.1:" + listener.getLocalPort();
    }

    /** Requests with {@code op} relayed so far. */
    int count(Opcode op) {
        AtomicInteger c = counts.get(op);
        return c == null ? 0 : c.get();
    }

    /** Requests of every opcode relayed so far. */
    int total() {
        return counts.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    void reset() {
        counts.clear();
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(target.host(), target.port());
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(server);
                start(() -> countRequests(client, server), "request-counter-up");
                start(() -> copy(server, client), "request-counter-down");
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private static void start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }

    /** Relays frames from a client to the server, counting each by opcode. */
    private void countRequests(Socket from, Socket to) {
        try (DataInputStream in = new DataInputStream(from.getInputStream())) {
            OutputStream out = to.getOutputStream();
            while (true) {
                int length = in.readInt();
                byte[] frame = new byte[length];
                in.readFully(frame);
                Opcode op = Opcode.ofCode(frame[0] & 0xff);
                if (op != null && (frame[1] & Frame.FLAG_RESPONSE) == 0) {
                    counts.computeIfAbsent(op, o -> new AtomicInteger()).incrementAndGet();
                }
                byte[] header = {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length};
                out.write(header);
                out.write(frame);
                out.flush();
            }
        } catch (IOException e) {
            closeQuietly(to);
        }
    }

    private static void copy(Socket from, Socket to) {
        byte[] buf = new byte[64 << 10];
        try (InputStream in = from.getInputStream()) {
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // the other side closed; so does this one
        }
        closeQuietly(to);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing: nothing more to do with it
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        sockets.forEach(RequestCounter::closeQuietly);
    }
}
