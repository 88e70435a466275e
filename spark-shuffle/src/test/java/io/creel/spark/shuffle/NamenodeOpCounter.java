package io.creel.spark.shuffle;

import io.creel.common.protocol.Frame;
import io.creel.common.protocol.Opcode;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP relay in front of a namenode that counts the requests clients send it, by opcode: the
 * namenode operations a workload costs, measured on the wire. Clients are pointed at
 * {@link #port()}; storage servers keep talking to the namenode directly.
 */
final class NamenodeOpCounter implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final Map<Opcode, AtomicLong> counts = new ConcurrentHashMap<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    NamenodeOpCounter(int namenodePort) throws IOException {
        this.target = namenodePort;
        this.server = new ServerSocket(0, 64, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "nn-op-counter");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** Requests seen so far, by opcode. */
    Map<Opcode, Long> counts() {
        Map<Opcode, Long> out = new EnumMap<>(Opcode.class);
        counts.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    long total() {
        return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket nn = new Socket(InetAddress.getLoopbackAddress(), target);
                client.setTcpNoDelay(true);
                nn.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(nn);
                pump(client.getInputStream(), nn.getOutputStream(), true);
                pump(nn.getInputStream(), client.getOutputStream(), false);
            } catch (IOException e) {
                if (!server.isClosed()) {
                    throw new IllegalStateException("op counter relay failed", e);
                }
            }
        }
    }

    private void pump(InputStream from, OutputStream to, boolean count) {
        Thread t = new Thread(() -> {
            DataInputStream in = new DataInputStream(from);
            byte[] buf = new byte[64 * 1024];
            try {
                while (true) {
                    int length = in.readInt();
                    byte[] frame = length <= buf.length - 4 ? buf : new byte[length + 4];
                    frame[0] = (byte) (length >>> 24);
                    frame[1] = (byte) (length >>> 16);
                    frame[2] = (byte) (length >>> 8);
                    frame[3] = (byte) length;
                    in.readFully(frame, 4, length);
                    if (count && (frame[Frame.LENGTH_FIELD + 1] & Frame.FLAG_RESPONSE) == 0) {
                        Opcode op = Opcode.ofCode(frame[Frame.LENGTH_FIELD] & 0xff);
                        if (op != null) {
                            counts.computeIfAbsent(op, k -> new AtomicLong()).incrementAndGet();
                        }
                    }
                    to.write(frame, 0, length + 4);
                    to.flush();
                }
            } catch (EOFException e) {
                closeQuietly(to);
            } catch (IOException e) {
                closeQuietly(to);
            }
        }, "nn-op-counter-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(OutputStream out) {
        try {
            out.close();
        } catch (IOException e) {
            // the other direction's pump ends on its own when its socket closes
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
