package io.creel.bench.baseline;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A private redis-server for the comparison: started on a free loopback port with no persistence
 * (no RDB snapshots, no AOF), stopped at close. {@link #find} says whether one is installed.
 */
public final class RedisServer implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServer(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /** The redis-server executable on the PATH (or in /usr/bin, /usr/local/bin), if installed. */
    public static Optional<Path> find() {
        String path = System.getenv("PATH");
        List<String> dirs = new java.util.ArrayList<>(path == null ? List.of() : List.of(path.split(":")));
        dirs.addAll(List.of("/usr/bin", "/usr/local/bin", "/usr/sbin"));
        for (String d : dirs) {
            Path p = Path.of(d, "redis-server");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** What {@code executable --version} prints (one line), or why it could not be asked. */
    public static String version(Path executable) {
        try {
            Process p = new ProcessBuilder(executable.toString(), "--version").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "unknown (" + executable + " --version did not finish)";
            }
            return out.lines().findFirst().orElse("unknown (" + executable + " --version printed nothing)");
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown (interrupted)";
        }
    }

    /** Starts {@code executable} and waits (up to 10 s) until it answers PING. */
    public static RedisServer start(Path executable) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Path dir = Files.createTempDirectory("creel-bench-redis");
        Process p = new ProcessBuilder(executable.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--daemonize", "no", "--protected-mode", "yes",
                "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.out").toFile()).start();
        RedisServer server = new RedisServer(p, port, dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                server.close();
                throw new IOException("redis-server exited at start (code " + p.exitValue() + "); see "
                        + dir.resolve("redis.log"));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                RespConnection c = new RespConnection(s);
                c.send("PING");
                if ("PONG".equals(c.readReply())) {
                    return server;
                }
            } catch (IOException e) {
                sleep(50);
            }
        }
        server.close();
        throw new IOException("redis-server did not answer PING on port " + port + " within 10 s");
    }

    public int port() {
        return port;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            System.err.println("bench: could not remove " + dir + ": " + e.getMessage());
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
