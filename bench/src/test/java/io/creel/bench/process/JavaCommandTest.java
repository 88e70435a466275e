package io.creel.bench.process;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JavaCommandTest {
    @Test
    void aChildSharesHeapLimitsAndPropertiesButNotProfilersAgentsOrDebuggers() {
        List<String> kept = JavaCommand.inheritable(List.of("-Xmx10g", "-XX:MaxDirectMemorySize=4g",
                "-Dcreel.home=/opt/creel", "-XX:StartFlightRecording=filename=bench.jfr,settings=profile",
                "-XX:FlightRecorderOptions=stackdepth=128", "-javaagent:/x/jacoco.jar=destfile=a",
                "-agentlib:jdwp=transport=dt_socket,server=y,address=5005", "-agentpath:/x/libprof.so",
                "-Xrunjdwp:transport=dt_socket", "-ea"));
        assertEquals(List.of("-Xmx10g", "-XX:MaxDirectMemorySize=4g", "-Dcreel.home=/opt/creel", "-ea"), kept);
    }

    @Test
    void theCommandRunsThisJavaWithThisClassPathAndTheExtraOptionsLast() {
        List<String> cmd = JavaCommand.of(JavaCommandTest.class, List.of("-Xmx64m"), List.of("a", "b"));
        assertEquals(JavaCommand.javaExecutable().toString(), cmd.get(0));
        int cp = cmd.indexOf("-cp");
        assertEquals("-Xmx64m", cmd.get(cp - 1));
        assertEquals(System.getProperty("java.class.path"), cmd.get(cp + 1));
        assertEquals(List.of(JavaCommandTest.class.getName(), "a", "b"), cmd.subList(cp + 2, cmd.size()));
        assertTrue(cmd.subList(1, cp).stream().noneMatch(a -> a.startsWith("-javaagent")));
    }

    @Test
    void optionStringsSplitAtWhiteSpace() {
        assertEquals(List.of("-Xmx4g", "-XX:+UseG1GC"), JavaCommand.splitOptions("  -Xmx4g \t -XX:+UseG1GC "));
        assertEquals(List.of(), JavaCommand.splitOptions("   "));
        assertEquals(List.of(), JavaCommand.splitOptions(null));
    }
}
