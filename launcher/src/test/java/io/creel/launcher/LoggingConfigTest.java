package io.creel.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.ConsoleAppender;
import org.apache.logging.log4j.core.appender.RollingFileAppender;
import org.apache.logging.log4j.core.appender.rolling.DefaultRolloverStrategy;
import org.apache.logging.log4j.core.appender.rolling.SizeBasedTriggeringPolicy;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** conf/log4j2.xml, the daemons' logging, as docs/deployment.md describes it. */
class LoggingConfigTest {
    private static final Path CONFIG = Path.of("..", "conf", "log4j2.xml").toAbsolutePath().normalize();
    private static final String[] PROPERTIES = {"creel.log.dir", "creel.log.file", "creel.log.level"};

    @TempDir
    Path dir;
    private LoggerContext context;

    @AfterEach
    void close() {
        if (context != null) {
            Configurator.shutdown(context);
        }
        for (String p : PROPERTIES) {
            System.clearProperty(p);
        }
    }

    private LoggerContext load(Map<String, String> properties) {
        properties.forEach(System::setProperty);
        context = Configurator.initialize("creel-test-" + System.nanoTime(), getClass().getClassLoader(),
                CONFIG.toUri());
        return context;
    }

    @Test
    void withoutALogFileADaemonLogsToStderrAtTheLevelItWasGiven() {
        LoggerContext ctx = load(Map.of("creel.log.level", "debug"));
        assertInstanceOf(ConsoleAppender.class, ctx.getConfiguration().getAppender("console"));
        assertNull(ctx.getConfiguration().getAppender("file"));
        assertEquals(Level.DEBUG, ctx.getRootLogger().getLevel());
        assertEquals(Level.WARN, ctx.getLogger("io.netty.channel").getLevel(), "Netty stays quiet");
    }

    @Test
    void aLogFileRollsOverAt100MbKeepingNineAndEveryLineIsDated() throws Exception {
        LoggerContext ctx = load(Map.of("creel.log.dir", dir.toString(), "creel.log.file", "nn.log"));
        RollingFileAppender file = assertInstanceOf(RollingFileAppender.class,
                ctx.getConfiguration().getAppender("file"));
        SizeBasedTriggeringPolicy size = assertInstanceOf(SizeBasedTriggeringPolicy.class, file.getTriggeringPolicy());
        assertEquals(100L * 1024 * 1024, size.getMaxFileSize());
        assertEquals(9, ((DefaultRolloverStrategy) file.getManager().getRolloverStrategy()).getMaxIndex());
        assertEquals(Level.INFO, ctx.getRootLogger().getLevel(), "a daemon's default");

        ctx.getLogger("io.creel.namenode.NamenodeServer").info("namenode serving on 0.0.0.0:9060");
        ctx.getLogger("io.creel.namenode.NamenodeServer").debug("not at info");
        String text = Files.readString(dir.resolve("nn.log"));
        assertTrue(text.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}(Z|[+-]\\d\\d:\\d\\d) INFO  \\[[^]]+] "
                + "i\\.c\\.n\\.NamenodeServer - namenode serving on 0\\.0\\.0\\.0:9060\\R"), text);
    }
}
