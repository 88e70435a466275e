package io.creel.storage.nvmf.tcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on loopback between the initiator and a real target, so a test can make the target
 * disappear ({@link #cut()}: every connection reset) or go silent ({@link #blackhole()}: bytes are
 * swallowed in both directions, connections stay up).
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String host;
    private final int port;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean blackhole;

    TcpProxy(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::acceptLoop, "tcp-proxy-accept");
        accept.setDaemon(true);
        accept.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void acceptLoop() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(host, port);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                // the server socket was closed, or the target refused: the client sees its connection end
                return;
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[65536];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    if (!blackhole) {
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
            } catch (IOException e) {
                // a reset or close on either side ends this direction; the other follows
            } finally {
                closeQuietly(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    /** Resets every connection (RST), as when the target's host vanishes or its process dies. */
    void cut() {
        for (Socket s : sockets) {
            try {
                s.setSoLinger(true, 0);
            } catch (IOException e) {
                // already closed
            }
            closeQuietly(s);
        }
    }

    /** Stops forwarding in both directions; the connections stay open. */
    void blackhole() {
        blackhole = true;
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing is all that is wanted
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        cut();
    }
}
