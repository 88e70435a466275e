package io.creel.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.BuildInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code bin/creel} itself: what it says about its build and which commands it has. */
class CreelMainTest {
    /** Runs a command line and returns what it printed on stdout. */
    private static String stdout(String... args) {
        PrintStream saved = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            assertEquals(0, CreelMain.run(args));
        } finally {
            System.setOut(saved);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    @Test
    void versionNamesTheReleaseAndTheCommit() {
        String first = stdout("--version").lines().findFirst().orElseThrow();
        assertEquals("creel " + BuildInfo.current().version() + " (commit " + BuildInfo.current().commit() + ")",
                first);
        assertTrue(first.matches("creel \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit ([0-9a-f]{12}|unknown)\\)"), first);
    }

    @Test
    void theToolCommandsAreThereWhenTheirJarsAre() {
        // The test class path has bench and the YCSB binding; a distribution's daemons do not (see dist).
        String help = stdout("--help");
        assertTrue(help.contains("bench"), help);
        assertTrue(help.contains("ycsb"), help);
    }

    @Test
    void confPrintsTheEffectiveValueOfEveryKeyAndWhereItCameFrom() {
        String all = stdout("conf", "--conf", "creel.http.port=9070");
        assertTrue(all.contains("creel.http.port = 9070  # --conf\n"), all);
        assertTrue(all.contains("creel.block.size = 1m  # default\n"), all);
        assertEquals(io.creel.common.conf.ConfKeys.all().size(), all.lines().count(), all);
        assertEquals("creel.http.port = 9070  # --conf\n",
                stdout("conf", "--changed", "--conf", "creel.http.port=9070").replace("\r", ""));
    }

    @Test
    void completionIsABashScriptThatKnowsEveryCommandAndOption() {
        String script = stdout("completion");
        assertTrue(script.startsWith("#!/usr/bin/env bash"), script.substring(0, 80));
        assertTrue(script.contains("complete -F _complete_creel"), "registers itself with bash");
        for (String word : new String[] {"namenode", "datanode", "report", "conf", "--fail-on", "--json"}) {
            assertTrue(script.contains(word), word);
        }
    }

    @Test
    void theLogLevelOptionIsReadWhereverItStands() {
        assertEquals("debug", CreelMain.levelOption("namenode", "--log-level", "debug"));
        assertEquals("warn", CreelMain.levelOption("--log-level=WARN", "fs", "ls"));
        assertNull(CreelMain.levelOption("fs", "ls", "/"));
        assertNull(CreelMain.levelOption("fs", "ls", "--log-level"));
        assertNull(CreelMain.levelOption("fs", "ls", "--log-level", "loud"));
    }

    @Test
    void theCommandIsFoundBehindATopLevelLogLevel() {
        assertEquals("namenode", CreelMain.commandName("--log-level", "debug", "namenode", "--port", "1"));
        assertEquals("datanode", CreelMain.commandName("--log-level=warn", "datanode"));
        assertEquals("fs", CreelMain.commandName("fs", "--log-level", "debug", "ls"));
        assertEquals("", CreelMain.commandName());
    }

    @Test
    void aMisspeltLevelIsAUsageError() {
        PrintStream saved = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(2, CreelMain.run("report", "--log-level", "loud"));
        } finally {
            System.setErr(saved);
        }
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("'loud' is not a level"), err.toString());
    }

    @Test
    void aToolWhoseJarsAreMissingSaysSoInsteadOfBeingAnUnknownCommand() {
        // The container image has no lib/bench: `creel bench` there must say why it does not run.
        CommandLine cli = new CommandLine(new CreelMain());
        CreelMain.addTool(cli, "bench", "io.creel.bench.NoSuchCommand", "io.creel.bench.NoSuchMarker");
        StringWriter err = new StringWriter();
        cli.setErr(new PrintWriter(err, true));
        assertEquals(2, cli.execute("bench", "--local", "--dram=1g"));
        assertTrue(err.toString().contains("creel: bench is not installed here: its jars (lib/bench of the binary "
                + "package, with io.creel.bench.NoSuchMarker) are not on this installation's class path"), err.toString());
        StringWriter out = new StringWriter();
        cli.setOut(new PrintWriter(out, true));
        cli.execute("--help");
        assertTrue(!out.toString().contains("bench"), "a command that is not there is not listed: " + out);
    }
}
