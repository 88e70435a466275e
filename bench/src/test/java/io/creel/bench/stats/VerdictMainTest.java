package io.creel.bench.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class VerdictMainTest {
    private static String judge(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int rc = VerdictMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return rc == 0 ? out.toString(StandardCharsets.UTF_8).trim() : "rc " + rc;
    }

    @Test
    void theScriptsGetTheBenchsVerdictAndTheBaselinesDeviation() {
        assertEquals("met 0.0500", judge("atLeast", "0.8", "0.8", "100", "95", "105"));
        assertEquals("missed 0.0000", judge("atLeast", "0.8", "0.79", "100", "100", "100"));
        assertEquals("unsettled 0.5000", judge("atMost", "2", "1.0", "100", "150", "90"));
    }

    @Test
    void aMalformedCommandLineIsRefused() {
        assertEquals("rc 2", judge("atLeast", "0.8", "0.9"));
        assertEquals("rc 2", judge("roughly", "0.8", "0.9", "1"));
        assertEquals("rc 2", judge("atLeast", "0.8", "fast", "1"));
    }
}
