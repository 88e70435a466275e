package io.creel.minicluster.cluster.model;

import io.creel.common.net.HostPort;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP relay on loopback between clients and one namenode, so the chaos mode can cut every client
 * connection at once ({@link #cut}) as a lost network path would, while the namenode keeps running.
 * Clients reconnect through it afterwards, unless it is {@link #down} (a cut that lasts: every
 * connection is closed as it comes, as by a namenode out of reach). Threads per connection: a test
 * has a handful. Public for the end-to-end tests of other packages (expiring nodes across a cut).
 */
public final class CuttableProxy implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CuttableProxy.class);
    private static final int CONNECT_TIMEOUT_MILLIS = 5_000;
    private static final long JOIN_MILLIS = 5_000;

    private final HostPort target;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final List<Thread> pumps = new CopyOnWriteArrayList<>();
    private volatile boolean closed;
    /** While set, the path is cut: new connections are closed at once. */
    private volatile boolean down;

    public CuttableProxy(HostPort target) {
        this.target = target;
        try {
            listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on loopback for a proxy to namenode " + target, e);
        }
        acceptor = new Thread(this::acceptLoop, "model-proxy-" + target.port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Where clients connect instead of the namenode. */
    public HostPort address() {
        return new HostPort("127.0.0.1", listener.getLocalPort());
    }

    /**
     * With {@code true}, cuts every relayed connection and refuses new ones until called with
     * {@code false}: a network cut that lasts.
     */
    public void down(boolean cutNow) {
        down = cutNow;
        if (cutNow) {
            cut();
        }
    }

    /** Closes every relayed connection now; requests in flight on them are lost. */
    public int cut() {
        int n = 0;
        for (Socket s : open) {
            quietClose(s);
            n++;
        }
        open.clear();
        return n;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("proxy to namenode {} stops accepting: {}", target, e.toString());
                }
                return;
            }
            if (down) {
                quietClose(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(new InetSocketAddress(target.host(), target.port()), CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                // The namenode is restarting: the client sees its connection close, as it would without us.
                quietClose(client);
                quietClose(upstream);
                continue;
            }
            open.add(client);
            open.add(upstream);
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 << 10];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                for (int k; (k = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, k);
                }
            } catch (IOException e) {
                // Cut, or the other side closed: the relay ends and closes both ends below.
            } finally {
                quietClose(from);
                quietClose(to);
                open.remove(from);
                open.remove(to);
            }
        }, "model-proxy-pump-" + target.port());
        t.setDaemon(true);
        pumps.removeIf(p -> !p.isAlive());
        pumps.add(t);
        t.start();
    }

    private static void quietClose(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            LOG.debug("closing a relayed socket: {}", e.toString());
        }
    }

    @Override
    public void close() {
        closed = true;
        down = false;
        try {
            listener.close();
        } catch (IOException e) {
            LOG.debug("closing the proxy listener: {}", e.toString());
        }
        cut();
        try {
            acceptor.join(JOIN_MILLIS);
            for (Thread t : pumps) {
                t.join(JOIN_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (acceptor.isAlive() || pumps.stream().anyMatch(Thread::isAlive)) {
            LOG.warn("proxy to namenode {}: a relay thread outlived its close by {} ms", target,
                    TimeUnit.MILLISECONDS.toMillis(JOIN_MILLIS));
        }
    }
}
