package io.creel.bench.user;

import io.creel.bench.BenchContext;
import io.creel.bench.baseline.MachineLimits;
import io.creel.bench.modes.BaselineSampler;
import io.creel.bench.process.JavaCommand;
import io.creel.bench.process.TimedCommand;
import io.creel.bench.report.Units;
import io.creel.bench.stats.Summary;
import io.creel.client.CreateOptions;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code user}: bulk transfers through the client API in a fresh JVM each ({@link FreshClientMain},
 * timed inside it: an application's first transfer, nothing warmed up), target 2: a put of a
 * {@code --user-size} file from a tmpfs against {@code cp} into the tmpfs, and a get of it against
 * {@code cat} from the tmpfs (same host) and against one raw loopback socket transfer (TCP).
 * Creel's figures and their baseline alternate, repetition by repetition. The same figures for the
 * {@code bin/creel fs get/put} commands come from {@code bench/scripts/fs-bulk.sh}, which runs the
 * commands as a user does; the bench does not repeat that script's work.
 */
public final class UserBench {
    private static final Path DEV_NULL = Path.of("/dev/null");
    private static final int SOCKET_BUFFER = 1 << 20;
    static final String FS_BULK_NOTE = "user: the client API in a fresh JVM per transfer; bin/creel fs get/put "
            + "against cat, cp and a socket: bench/scripts/fs-bulk.sh";

    private final BenchContext ctx;
    private final long size;
    private final Duration timeout;
    /** The environment of the commands: a user's, without the bench's JVM options. */
    private final Map<String, String> env = new HashMap<>();

    private UserBench(BenchContext ctx) {
        this.ctx = ctx;
        this.size = ctx.settings().userFileSize();
        // Generous: a loaded machine may move only tens of MB/s, and a JVM may take seconds to start.
        this.timeout = Duration.ofMinutes(2).plusSeconds(size / (10L << 20));
        env.put("CREEL_JAVA_OPTS", null);
    }

    public static void run(BenchContext ctx) {
        ctx.report().note(FS_BULK_NOTE);
        new UserBench(ctx).measure();
    }

    /**
     * The baselines of this mode, {@code cat}, {@code cp} and one socket transfer of
     * {@code --user-size}, for {@link BaselineSampler}: on a source file of
     * their own in a tmpfs, written on first use and removed with the run.
     */
    public static List<BaselineSampler.Probe> checkpointProbes(BenchContext ctx) {
        UserBench u = new UserBench(ctx);
        Map<String, Object> params = Map.of("size", u.size);
        Path[] source = new Path[1];
        Runnable ensureSource = () -> {
            if (source[0] == null) {
                Path dir = u.localDirectory("baselines");
                ctx.scope().add("the baseline files in " + dir, () -> deleteTree(dir));
                source[0] = dir.resolve("source");
                ctx.progress().point("baseline samples: writing " + Units.size(u.size) + " to " + source[0]);
                u.writeSource(source[0]);
            }
        };
        List<BaselineSampler.Probe> out = new ArrayList<>();
        out.add(new BaselineSampler.Probe("cp " + Units.size(u.size), "cp into tmpfs", params,
                () -> {
                    ensureSource.run();
                    return u.cp(source[0], source[0].resolveSibling("copy"));
                }));
        out.add(new BaselineSampler.Probe("cat " + Units.size(u.size), "cat from tmpfs", params,
                () -> {
                    ensureSource.run();
                    return u.cat(source[0]);
                }));
        if (ctx.settings().paths().contains(true)) {
            out.add(new BaselineSampler.Probe("socket transfer " + Units.size(u.size),
                    "socket transfer", params, () -> MachineLimits.tcpTransfer(u.size, SOCKET_BUFFER)));
        }
        return out;
    }

    /** One {@code cp} of {@code source} to {@code copy}, removed after. */
    private Summary cp(Path source, Path copy) {
        long t = TimedCommand.run(List.of("cp", source.toString(), copy.toString()), env, false, timeout).nanos();
        deleteTree(copy);
        return Summary.bandwidth(size, 1, t);
    }

    /** One {@code cat} of {@code source} into a pipe the bench drains. */
    private Summary cat(Path source) {
        long t = TimedCommand.run(List.of("cat", source.toString()), env, true, timeout).nanos();
        return Summary.bandwidth(size, 1, t);
    }

    private void measure() {
        Path dir = localDirectory("user");
        Runnable removeDir = () -> deleteTree(dir);
        ctx.scope().add("the local files in " + dir, removeDir::run);
        try {
            Path source = dir.resolve("source");
            ctx.progress().point("user: writing " + Units.size(size) + " to " + source);
            writeSource(source);
            String top = ctx.names().path("user");
            ctx.pool().main(false).create(top, NodeType.DIRECTORY, io.creel.bench.scope.RunNamespace.scratch(
                    CreateOptions.defaults().withStorageClass(ctx.settings().storageClass()))).join();
            puts(dir, source, top);
            String data = top + "/data";
            ctx.progress().point("user: copying " + source + " to " + data);
            fresh(List.of("put", source.toString(), data), false);
            for (boolean tcp : ctx.settings().paths()) {
                gets(source, data, tcp);
            }
            ctx.pool().main(false).delete(top, true).join();
        } finally {
            removeDir.run();
        }
    }

    private void puts(Path dir, Path source, String top) {
        boolean tcp = ctx.settings().tcpOnly();
        String where = BenchContext.pathName(tcp);
        Map<String, Object> params = Map.of("size", size);
        List<BenchContext.Point> points = new ArrayList<>();
        points.add(new BenchContext.Point("cp into tmpfs", params, r -> {
            ctx.progress().point(ctx.label("user: cp " + Units.size(size), r));
            return cp(source, dir.resolve("copy"));
        }));
        points.add(new BenchContext.Point("api put " + where + " (fresh JVM)", params, r -> {
            String target = top + "/api-put-r" + r;
            ctx.progress().point(ctx.label("user: API put " + Units.size(size) + " " + where + " in a fresh JVM", r));
            TransferResult t = fresh(List.of("put", source.toString(), target), tcp);
            ctx.pool().main(false).delete(target, false).join();
            return Summary.bandwidth(t.bytes(), 1, t.nanos());
        }));
        ctx.alternate("user", points);
    }

    private void gets(Path source, String data, boolean tcp) {
        String where = BenchContext.pathName(tcp);
        Map<String, Object> params = Map.of("size", size);
        List<BenchContext.Point> points = new ArrayList<>();
        if (tcp) {
            points.add(new BenchContext.Point("socket transfer", params, r -> {
                ctx.progress().point(ctx.label("user: loopback socket transfer of " + Units.size(size), r));
                return MachineLimits.tcpTransfer(size, SOCKET_BUFFER);
            }));
        } else {
            points.add(new BenchContext.Point("cat from tmpfs", params, r -> {
                ctx.progress().point(ctx.label("user: cat " + Units.size(size), r));
                return cat(source);
            }));
        }
        points.add(new BenchContext.Point("api get " + where + " (fresh JVM)", params, r -> {
            ctx.progress().point(ctx.label("user: API get " + Units.size(size) + " " + where + " in a fresh JVM", r));
            TransferResult t = fresh(List.of("get", data), tcp);
            if (t.bytes() != size) {
                throw new CreelException(ErrorCode.INTERNAL, "the fresh client read " + t.bytes() + " bytes of "
                        + data + ", not " + size);
            }
            return Summary.bandwidth(t.bytes(), 1, t.nanos());
        }));
        ctx.alternate("user", points);
    }

    private TransferResult fresh(List<String> args, boolean tcp) {
        List<String> all = new ArrayList<>(args);
        all.addAll(FreshClientMain.confArguments(ctx.conf(), tcp));
        List<String> cmd = JavaCommand.of(FreshClientMain.class, List.of(), all);
        TimedCommand.Result r = TimedCommand.run(cmd, env, false, timeout);
        try {
            return TransferResult.parse(r.output());
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.INTERNAL, "the fresh client JVM " + TimedCommand.describe(cmd)
                    + ": " + e.getMessage(), e);
        }
    }

    /** A fresh directory in a tmpfs (/dev/shm) where there is one, else in the temporary directory. */
    private Path localDirectory(String purpose) {
        String name = "creel-bench-" + ctx.names().runId() + "-" + purpose;
        try {
            Path shm = Path.of("/dev/shm");
            if (Files.isDirectory(shm) && Files.isWritable(shm)) {
                return Files.createDirectory(shm.resolve(name));
            }
            ctx.report().note("no writable /dev/shm: cat and cp use " + System.getProperty("java.io.tmpdir")
                    + ", which may not be a tmpfs");
            return Files.createTempDirectory(name);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot make the user mode's directory " + name + ": "
                    + e.getMessage(), e);
        }
    }

    /** {@code size} bytes of a pattern that varies by page (nothing a file system could share or skip). */
    private void writeSource(Path file) {
        ByteBuffer buf = ByteBuffer.allocateDirect(8 << 20);
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long written = 0;
            while (written < size) {
                buf.clear().limit((int) Math.min(buf.capacity(), size - written));
                for (int i = 0; i + Long.BYTES <= buf.limit(); i += 4096) {
                    buf.putLong(i, written + i);
                }
                while (buf.hasRemaining()) {
                    written += out.write(buf);
                }
            }
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot write the user mode's source file " + file
                    + ": " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("bench: cannot remove " + dir + ": " + e);
        }
    }
}
