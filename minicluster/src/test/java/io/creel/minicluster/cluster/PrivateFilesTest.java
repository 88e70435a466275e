package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.conf.ConfKeys;
import io.creel.common.namespace.NodeType;
import io.creel.storage.local.LocalTierKeys;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The DRAM and disk tiers' files and directories are private to the storage server's user (and a
 * configured group): another user of the host cannot read them, and that user's client still works,
 * over TCP, after one line saying why it does not use the files.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PrivateFilesTest {
    private static final String OTHER_USER = "creel-sectest";

    @TempDir
    Path tmp;

    /**
     * Skips the test when {@code met} is false, saying why; CI (root) sets CREEL_PRIVATE_FILES_REQUIRED=1,
     * and there it fails instead.
     */
    private static void needs(boolean met, String why) {
        assertTrue(met || !"1".equals(System.getenv("CREEL_PRIVATE_FILES_REQUIRED")),
                why + " (required here: CREEL_PRIVATE_FILES_REQUIRED=1)");
        assumeTrue(met, why);
    }

    private static List<Path> tierFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().matches(".*\\.(region|data|tags)")).toList();
        }
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.readAttributes(p, PosixFileAttributes.class).permissions());
    }

    @Test
    void tierFilesAndDirectoriesAreTheServersUsersOnlyOrAlsoTheConfiguredGroups() throws Exception {
        for (String group : new String[] {"", "users"}) {
            Path dram = Files.createDirectories(tmp.resolve("dram" + group));
            Path disk = Files.createDirectories(tmp.resolve("disk" + group));
            Files.setPosixFilePermissions(dram, PosixFilePermissions.fromString("rwxrwxrwx"));
            try (io.creel.minicluster.MiniCluster cluster = io.creel.minicluster.MiniCluster.builder()
                    .dramDir(dram).diskDir(disk).dram(4L << 20).disk(4L << 20)
                    .set(LocalTierKeys.FILES_GROUP, group).set(ConfKeys.NET_EVENT_LOOPS, "2").start()) {
                String dirMode = group.isEmpty() ? "rwx------" : "rwxr-x---";
                String fileMode = group.isEmpty() ? "rw-------" : "rw-rw----";
                assertEquals(dirMode, mode(dram), "DRAM directory with group '" + group + "'");
                assertEquals(dirMode, mode(disk), "disk directory with group '" + group + "'");
                List<Path> files = new ArrayList<>(tierFiles(dram));
                files.addAll(tierFiles(disk));
                assertEquals(3, files.size(), "a region file, a data file and its tags: " + files);
                for (Path f : files) {
                    assertEquals(fileMode, mode(f), f.toString());
                    if (!group.isEmpty()) {
                        assertEquals(group, Files.readAttributes(f, PosixFileAttributes.class).group().getName(), f.toString());
                    }
                }
            }
        }
    }

    @Test
    void anUnknownGroupIsAConfigurationErrorNamingTheKey() {
        io.creel.common.error.CreelException e = org.junit.jupiter.api.Assertions.assertThrows(
                io.creel.common.error.CreelException.class, () -> io.creel.minicluster.MiniCluster.builder()
                        .dramDir(tmp.resolve("d")).diskDir(tmp.resolve("k")).dram(4L << 20).disk(4L << 20)
                        .set(LocalTierKeys.FILES_GROUP, "no-such-group-here").start().close());
        assertTrue(e.getMessage().contains(LocalTierKeys.FILES_GROUP.name()), e.getMessage());
    }

    @Test
    void anotherUserCannotReadTheFilesAndItsClientFallsBackToTcp() throws Exception {
        needs("root".equals(System.getProperty("user.name")), "needs root to create and become another user");
        boolean existed = run(List.of("id", "-u", OTHER_USER)).exit == 0;
        needs(existed || run(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                OTHER_USER)).exit == 0, "useradd " + OTHER_USER + " failed");
        Path classpath = worldReadableClasspath();
        try {
            readAndWriteAsAnotherUser(classpath);
        } finally {
            if (!existed) {
                run(List.of("userdel", OTHER_USER));
            }
            try (Stream<Path> all = Files.walk(classpath)) {
                all.sorted(java.util.Comparator.reverseOrder()).forEach(q -> q.toFile().delete());
            }
        }
    }

    private void readAndWriteAsAnotherUser(Path classpath) throws Exception {
        try (Clusters.Running running = Clusters.start(b -> b.dram(8L << 20).disk(8L << 20))) {
            byte[] data = new byte[3 << 20];
            new Random(5).nextBytes(data);
            try (CreelClient c = CreelClient.connect(running.cluster.clientConf())) {
                CreelNode f = c.create("/shared", NodeType.FILE).join();
                f.writer().write(ByteBuffer.wrap(data)).join();
                f.writer().close().join();
            }
            Path dramDir = Path.of(running.cluster.storageServers().get(0).info().attributes().values().stream()
                    .filter(v -> v.endsWith(".region")).findFirst().orElseThrow()).getParent();
            for (Path file : tierFiles(dramDir)) {
                Result cat = run(List.of("runuser", "-u", OTHER_USER, "--", "head", "-c", "1", file.toString()));
                assertNotEquals(0, cat.exit, OTHER_USER + " read " + file + ": " + cat.output);
                assertTrue(cat.output.contains("Permission denied"), cat.output);
            }

            StringBuilder cp = new StringBuilder(classpath + File.separator + "*");
            try (Stream<Path> dirs = Files.list(classpath.resolve("dirs"))) {
                dirs.sorted().forEach(d -> cp.append(File.pathSeparator).append(d));
            }
            List<String> cmd = new ArrayList<>(List.of("runuser", "-u", OTHER_USER, "--",
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", cp.toString(),
                    OtherUserClient.class.getName(), "/shared", Integer.toString(data.length)));
            running.cluster.clientConf().explicitSettings().forEach((k, v) -> cmd.add(k + "=" + v));
            Result client = run(cmd);
            assertEquals(0, client.exit, client.output);
            assertTrue(client.output.contains("read " + data.length + " bytes, checksum "
                    + OtherUserClient.checksum(ByteBuffer.wrap(data))), client.output);
            assertTrue(client.output.contains("wrote and read back 1048576 bytes, same: true"), client.output);
            Matcher m = Pattern.compile("cannot use the files of .* may not open it").matcher(client.output);
            int lines = 0;
            while (m.find()) {
                lines++;
            }
            assertEquals(1, lines, "one line for the DRAM server it read from:\n" + client.output);
        }
    }

    /** The test class path, copied where any user may read it (a build's own files may not be). */
    private Path worldReadableClasspath() throws IOException {
        Path dir = Files.createTempDirectory("creel-other-user-cp");
        int n = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isRegularFile(p)) {
                Files.copy(p, dir.resolve((n++) + "-" + p.getFileName()));
            } else if (Files.isDirectory(p)) {
                // One copy per entry: each module's classes carry their own META-INF/services files.
                Path dirs = Files.createDirectories(dir.resolve("dirs").resolve(Integer.toString(n++)));
                try (Stream<Path> all = Files.walk(p)) {
                    for (Path q : (Iterable<Path>) all::iterator) {
                        Path to = dirs.resolve(p.relativize(q).toString());
                        if (Files.isDirectory(q)) {
                            Files.createDirectories(to);
                        } else if (!Files.exists(to)) {
                            Files.copy(q, to);
                        }
                    }
                }
            }
        }
        Files.createDirectories(dir.resolve("dirs"));
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path q : (Iterable<Path>) all::iterator) {
                Files.setPosixFilePermissions(q, PosixFilePermissions.fromString(Files.isDirectory(q) ? "rwxr-xr-x"
                        : "rw-r--r--"));
            }
        }
        return dir;
    }

    private record Result(int exit, String output) {
    }

    private static Result run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("timed out: " + command);
        }
        return new Result(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }
}
