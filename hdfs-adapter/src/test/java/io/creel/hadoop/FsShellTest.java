package io.creel.hadoop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FsShell;
import org.apache.hadoop.util.ToolRunner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code hadoop fs} (FsShell) against {@code creel://}, as a user would drive it. */
class FsShellTest {
    /** Exit code and what the command printed. */
    private record Result(int exit, String out, String err) {
    }

    private static Result shell(String... args) throws Exception {
        Configuration conf = TestCluster.configuration();
        PrintStream oldOut = System.out;
        PrintStream oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            exit = ToolRunner.run(new FsShell(conf), args);
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void mkdirPutLsCatMvDuRm(@TempDir Path tmp) throws Exception {
        String base = TestCluster.uri().toString() + "shell";
        String text = "hello creel\nsecond line\n";
        Path local = tmp.resolve("hello.txt");
        Files.writeString(local, text);

        assertEquals(0, shell("-mkdir", "-p", base + "/in").exit());
        assertEquals(0, shell("-put", local.toString(), base + "/in/hello.txt").exit());

        Result ls = shell("-ls", base + "/in");
        assertEquals(0, ls.exit(), ls.err());
        assertTrue(ls.out().contains("Found 1 items"), ls.out());
        String line = ls.out().lines().filter(l -> l.endsWith("/in/hello.txt")).findFirst().orElseThrow();
        assertTrue(line.startsWith("-rw-rw-rw-"), line);
        assertTrue(line.contains(" " + text.length() + " "), "size in: " + line);
        assertTrue(line.endsWith(base + "/in/hello.txt"), line);

        Result cat = shell("-cat", base + "/in/hello.txt");
        assertEquals(0, cat.exit(), cat.err());
        assertEquals(text, cat.out());

        assertEquals(0, shell("-mkdir", base + "/out").exit());
        Result mv = shell("-mv", base + "/in/hello.txt", base + "/out");
        assertEquals(0, mv.exit(), mv.err());
        assertEquals(text, shell("-cat", base + "/out/hello.txt").out());
        assertNotEquals(0, shell("-cat", base + "/in/hello.txt").exit(), "the source is gone after mv");

        Result du = shell("-du", base);
        assertEquals(0, du.exit(), du.err());
        String outLine = du.out().lines().filter(l -> l.endsWith(base + "/out")).findFirst().orElseThrow();
        assertTrue(outLine.startsWith(text.length() + " "), outLine);
        String inLine = du.out().lines().filter(l -> l.endsWith(base + "/in")).findFirst().orElseThrow();
        assertTrue(inLine.startsWith("0 "), inLine);

        Result rm = shell("-rm", base + "/out/hello.txt");
        assertEquals(0, rm.exit(), rm.err());
        assertTrue(rm.out().contains("Deleted " + base + "/out/hello.txt"), rm.out());
        Result empty = shell("-ls", base + "/out");
        assertEquals(0, empty.exit());
        assertEquals("", empty.out());

        Result missing = shell("-ls", base + "/nothing-here");
        assertNotEquals(0, missing.exit());
        assertTrue(missing.err().contains("No such file or directory"), missing.err());

        Result rmr = shell("-rm", "-r", base);
        assertEquals(0, rmr.exit(), rmr.err());
        assertNotEquals(0, shell("-ls", base).exit());
    }
}
