package io.creel.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.fake.FakeCluster;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The CLI commands against a fake namenode: results, one-line errors, exit codes. */
class CliTest {
    @Command(name = "creel", subcommands = {FsCommand.class, KvCommand.class, ReportCommand.class})
    static final class Root {
    }

    private FakeCluster cluster;
    private StringWriter out;
    private StringWriter err;
    @TempDir
    Path tmp;

    @BeforeEach
    void start() {
        cluster = new FakeCluster(1);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private int run(String... args) {
        out = new StringWriter();
        err = new StringWriter();
        CommandLine cmd = CliErrors.configure(new CommandLine(new Root()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of(args));
        cluster.settings().forEach((k, v) -> {
            all.add("--conf");
            all.add(k + "=" + v);
        });
        return cmd.execute(all.toArray(String[]::new));
    }

    /** Runs a command whose data goes to System.out, returning those bytes. */
    private byte[] runToStdout(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true));
        try {
            assertEquals(0, run(args), () -> err.toString());
        } finally {
            System.setOut(saved);
        }
        return bytes.toByteArray();
    }

    @Test
    void putGetCatLsStatMvRmRoundTrip() throws Exception {
        byte[] data = new byte[3 * FakeCluster.BLOCK + 123];
        new Random(1).nextBytes(data);
        Path local = tmp.resolve("in.bin");
        Files.write(local, data);

        assertEquals(0, run("fs", "mkdir", "-p", "/a/b"), () -> err.toString());
        assertEquals(0, run("fs", "put", local.toString(), "/a/b/f"), () -> err.toString());
        assertEquals(0, run("fs", "put", local.toString(), "/a/b"), () -> err.toString());
        assertEquals(0, run("fs", "ls", "/a/b"));
        assertEquals("f\nin.bin\n", out.toString().replace("\r", ""));
        assertEquals(0, run("fs", "ls", "-l", "/a"));
        assertTrue(out.toString().contains("Directory") && out.toString().contains("b/"), out.toString());

        Path back = tmp.resolve("out.bin");
        assertEquals(0, run("fs", "get", "/a/b/f", back.toString()), () -> err.toString());
        assertArrayEquals(data, Files.readAllBytes(back));
        assertArrayEquals(data, runToStdout("fs", "cat", "/a/b/f"));

        assertEquals(0, run("fs", "stat", "/a/b/f"));
        assertTrue(out.toString().contains("type:       File"), out.toString());
        assertTrue(out.toString().contains("size:       " + data.length), out.toString());

        assertEquals(0, run("fs", "mv", "/a/b/f", "/a/g"));
        assertEquals(0, run("fs", "rm", "-r", "/a/b"));
        assertEquals(0, run("fs", "ls", "/a"));
        assertEquals("g\n", out.toString().replace("\r", ""));
    }

    @Test
    void kvPutGetRmAndLs() throws Exception {
        Path v = tmp.resolve("v");
        Files.writeString(v, "hello");
        assertEquals(0, run("kv", "put", "/t", "k1", v.toString()), () -> err.toString());
        Files.writeString(v, "replaced");
        assertEquals(0, run("kv", "put", "/t", "k1", v.toString()), () -> err.toString());
        assertEquals("replaced", new String(runToStdout("kv", "get", "/t", "k1")));
        assertEquals(0, run("kv", "ls", "/t"));
        assertEquals("k1\t8\n", out.toString().replace("\r", ""));
        assertEquals(0, run("kv", "rm", "/t", "k1"));
        assertEquals(1, run("kv", "get", "/t", "k1"));
    }

    @Test
    void kvScanReadsAnOrderedTableFromAStartKeyAndRefusesAnUnorderedOne() throws Exception {
        assertEquals(0, run("fs", "mkdir", "--type", "table", "--ordered", "/o"), () -> err.toString());
        Path v = tmp.resolve("v");
        for (String k : List.of("c", "a", "e", "b", "d")) {
            Files.writeString(v, "v-" + k);
            assertEquals(0, run("kv", "put", "/o", k, v.toString()), () -> err.toString());
        }
        assertEquals(0, run("kv", "scan", "/o"), () -> err.toString());
        assertEquals("a\t3\nb\t3\nc\t3\nd\t3\ne\t3\n", out.toString().replace("\r", ""));
        assertEquals(0, run("kv", "scan", "/o", "b", "-n", "2"), () -> err.toString());
        assertEquals("b\t3\nc\t3\n", out.toString().replace("\r", ""));
        assertEquals(2, run("kv", "scan", "/o", "-n", "0"));
        assertTrue(err.toString().contains("--limit must be at least 1"), err::toString);
        assertEquals(0, run("kv", "put", "/plain", "k", v.toString()), () -> err.toString());
        assertEquals(1, run("kv", "scan", "/plain"));
        assertTrue(err.toString().contains("/plain") && err.toString().contains("create it ordered"), err::toString);
        assertEquals(2, run("fs", "mkdir", "--ordered", "/dir"));
        assertTrue(err.toString().contains("--ordered is for a table"), err::toString);
    }

    @Test
    void lsRecursiveListsEveryPathBelowDepthFirstAndHumanSizesOnRequest() throws Exception {
        Path local = Files.write(tmp.resolve("k.bin"), new byte[3000]);
        assertEquals(0, run("fs", "mkdir", "-p", "/a/b"), () -> err.toString());
        assertEquals(0, run("fs", "put", local.toString(), "/a/b/f"), () -> err.toString());
        assertEquals(0, run("fs", "put", local.toString(), "/a/z"), () -> err.toString());
        assertEquals(0, run("fs", "ls", "-R", "/"), () -> err.toString());
        assertEquals("/a/\n/a/b/\n/a/b/f\n/a/z\n", out.toString().replace("\r", ""));
        assertEquals(0, run("fs", "ls", "-R", "-l", "-h", "/a"), () -> err.toString());
        String text = out.toString();
        assertTrue(text.contains("2.9 KiB") && text.contains("/a/b/f"), text);
        assertEquals(0, run("fs", "ls", "-l", "/a"), () -> err.toString());
        assertTrue(out.toString().contains("3000"), "bytes without -h: " + out);
    }

    @Test
    void duSumsEverythingBelowEachChildAndDashSGivesOneTotal() throws Exception {
        Path local = Files.write(tmp.resolve("k.bin"), new byte[1000]);
        assertEquals(0, run("fs", "mkdir", "-p", "/d/sub"), () -> err.toString());
        assertEquals(0, run("fs", "put", local.toString(), "/d/sub/x"), () -> err.toString());
        assertEquals(0, run("fs", "put", local.toString(), "/d/sub/y"), () -> err.toString());
        assertEquals(0, run("fs", "put", local.toString(), "/d/top"), () -> err.toString());
        assertEquals(0, run("fs", "du", "/d"), () -> err.toString());
        assertEquals("2000\t/d/sub/\n1000\t/d/top\n3000\t/d\n", out.toString().replace("\r", ""));
        assertEquals(0, run("fs", "du", "-s", "-h", "/d", "/d/top"), () -> err.toString());
        assertEquals("2.9 KiB\t/d\n1000 B\t/d/top\n", out.toString().replace("\r", ""));
        assertEquals(1, run("fs", "du", "/nothing-here"));
    }

    @Test
    void dfShowsEachClassAndTheTotal() throws Exception {
        Path local = Files.write(tmp.resolve("k.bin"), new byte[2 * FakeCluster.BLOCK]);
        assertEquals(0, run("fs", "put", local.toString(), "/f"), () -> err.toString());
        assertEquals(0, run("fs", "df"), () -> err.toString());
        List<String> lines = out.toString().replace("\r", "").lines().toList();
        assertEquals(3, lines.size(), out.toString());
        assertTrue(lines.get(0).matches("CLASS\\s+SIZE\\s+USED\\s+AVAIL\\s+USE%"), lines.get(0));
        String[] dram = lines.get(1).trim().split("\\s+");
        assertEquals("dram", dram[0]);
        long size = Long.parseLong(dram[1]);
        long used = Long.parseLong(dram[2]);
        assertEquals(65536L * FakeCluster.BLOCK, size);
        assertTrue(used >= 2L * FakeCluster.BLOCK, "the file's blocks are used: " + lines.get(1));
        assertEquals(size - used, Long.parseLong(dram[3]), "available is what is not used: " + lines.get(1));
        assertEquals("0%", dram[4]);
        assertEquals("total", lines.get(2).trim().split("\\s+")[0]);
        assertEquals(List.of(dram).subList(1, 5), List.of(lines.get(2).trim().split("\\s+")).subList(1, 5),
                "one class: the total is that class");
        assertEquals(0, run("fs", "df", "-h"), () -> err.toString());
        assertTrue(out.toString().contains("256.0 MiB"), out.toString());
    }

    @Test
    void reportShowsServersAndTotalsPerClass() {
        assertEquals(0, run("report"), () -> err.toString());
        String text = out.toString();
        assertTrue(text.contains("SERVER") && text.contains("fake-host:") && text.contains("dram"), text);
        assertTrue(text.contains("256.0 MiB"), "capacity of 65536 blocks of 4 KiB: " + text);
    }

    @Test
    void reportJsonHasTheSameFiguresInBytes() {
        assertEquals(0, run("report", "--json"), () -> err.toString());
        String json = out.toString().trim();
        assertTrue(json.startsWith("{\"namenodes\":[{\"address\":"), json);
        assertTrue(json.contains("\"capacityBytes\":268435456"), json);
        assertTrue(json.contains("\"deadServers\":[],\"fullClasses\":[]"), json);
    }

    @Test
    void reportRefusesAnUnknownFailOnChoice() {
        assertEquals(CliErrors.USAGE, run("report", "--fail-on", "sometimes"));
        assertEquals(0, run("report", "--fail-on", "none"), () -> err.toString());
    }

    @Test
    void anOperationErrorIsOneLineOnStderrWithExitCode1() {
        assertEquals(1, run("fs", "stat", "/missing"));
        String e = err.toString().replace("\r", "");
        assertTrue(e.startsWith("creel: /missing"), e);
        assertEquals(1, e.lines().count(), "one line, no stack trace: " + e);
        assertFalse(e.contains("Exception"), e);
    }

    @Test
    void debugAddsTheStackTrace() {
        assertEquals(1, run("fs", "stat", "--debug", "/missing"));
        assertTrue(err.toString().lines().count() > 1, err.toString());
    }

    @Test
    void usageAndConfigurationErrorsExitWith2() {
        assertEquals(2, run("fs", "mv", "/only-one"));
        assertTrue(err.toString().contains("Usage"), err.toString());
        assertEquals(2, run("fs", "ls", "/", "--conf", "creel.no.such.key=1"));
        assertTrue(err.toString().startsWith("creel: invalid configuration: unknown key 'creel.no.such.key'"),
                err.toString());
    }

    @Test
    void aCreelUriPathNamesTheNamenode() {
        String address = cluster.namenode().address().toUri();
        cluster.settings().put("creel.namenode.address", "creel://127.0.0.1:1"); // nothing listens there
        assertEquals(0, run("fs", "mkdir", address + "/viaUri"), () -> err.toString());
        assertTrue(cluster.namenode().exists("/viaUri"));
    }

    @Test
    void mkdirWithATimeToLiveShowsItsExpiryInStatAndLs() {
        assertEquals(0, run("fs", "mkdir", "--ttl", "10m", "/scratch"), () -> err.toString());
        assertEquals(0, run("fs", "mkdir", "/kept"), () -> err.toString());
        assertEquals(0, run("fs", "stat", "/scratch"), () -> err.toString());
        assertTrue(out.toString().contains("expires:    10m after its owner's last heartbeat (time to live; owner session "),
                out.toString());
        assertEquals(0, run("fs", "stat", "/kept"), () -> err.toString());
        assertTrue(out.toString().contains("expires:    never"), out.toString());
        assertEquals(0, run("fs", "mkdir", "/scratch/sub"), () -> err.toString());
        assertEquals(0, run("fs", "stat", "/scratch/sub"), () -> err.toString());
        assertTrue(out.toString().contains("expires:    with its ancestor /scratch, 10m after"), out.toString());
        assertEquals(0, run("fs", "ls", "-l", "/"), () -> err.toString());
        String listing = out.toString();
        assertTrue(listing.contains("EXPIRY") && listing.matches("(?s).*ttl=10m +scratch/.*")
                && listing.matches("(?s).*- +kept/.*"), listing);
        assertEquals(2, run("fs", "mkdir", "--ttl", "-5s", "/bad"));
        assertTrue(err.toString().contains("--ttl"), err.toString());
        assertEquals(2, run("fs", "mkdir", "--ttl", "0s", "/bad"));
        assertTrue(err.toString().contains("must be positive"), err.toString());
    }
}
