package io.creel.minicluster.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import io.creel.common.security.TestSecrets;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.cli.CliErrors;
import io.creel.cli.FsCommand;
import io.creel.common.security.SecurityKeys;
import io.creel.common.security.TestCertificates;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The CLI against a cluster with TLS and the cluster secret: with both it puts, lists and gets;
 * without the secret, or without TLS, it fails with one line saying why and a nonzero exit code.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SecuredCliTest {
    @Command(name = "creel", subcommands = {FsCommand.class})
    static final class Root {
    }

    @TempDir
    Path tmp;
    private final StringWriter err = new StringWriter();
    private final StringWriter out = new StringWriter();

    private int run(Map<String, String> conf, String... args) {
        CommandLine cmd = CliErrors.configure(new CommandLine(new Root()));
        cmd.setOut(new PrintWriter(out, true));
        cmd.setErr(new PrintWriter(err, true));
        List<String> all = new ArrayList<>(List.of(args));
        conf.forEach((k, v) -> {
            all.add("--conf");
            all.add(k + "=" + v);
        });
        return cmd.execute(all.toArray(String[]::new));
    }

    @Test
    void theCliWorksWithTlsAndTheSecretAndSaysWhyWithoutThem() throws Exception {
        TestCertificates certs = TestCertificates.make(tmp, "cli");
        Path secret = TestSecrets.write(tmp.resolve("cluster.secret"), "the cluster secret of the cli test");
        try (Clusters.Running running = Clusters.start(b -> {
            b.dram(8L << 20).disk(8L << 20);
            TestSecrets.tlsAndSecret(certs, secret).forEach(b::set);
        })) {
            Map<String, String> conf = running.cluster.clientConf().explicitSettings();
            byte[] data = new byte[3 << 20];
            new Random(9).nextBytes(data);
            Path in = tmp.resolve("in.bin");
            Path back = tmp.resolve("back.bin");
            Files.write(in, data);
            assertEquals(0, run(conf, "fs", "put", in.toString(), "/in.bin"), err::toString);
            assertEquals(0, run(conf, "fs", "ls", "/"), err::toString);
            assertTrue(out.toString().contains("in.bin"), out.toString());
            assertEquals(0, run(conf, "fs", "get", "/in.bin", back.toString()), err::toString);
            assertArrayEquals(data, Files.readAllBytes(back));

            Map<String, String> noSecret = new java.util.LinkedHashMap<>(conf);
            noSecret.put(SecurityKeys.SECRET_FILE.name(), "");
            err.getBuffer().setLength(0);
            assertNotEquals(0, run(noSecret, "fs", "ls", "/"));
            assertTrue(err.toString().contains("requires authentication"), err.toString());

            Map<String, String> noTls = new java.util.LinkedHashMap<>(conf);
            noTls.put(SecurityKeys.TLS_ENABLED.name(), "false");
            err.getBuffer().setLength(0);
            assertNotEquals(0, run(noTls, "fs", "ls", "/"));
            assertTrue(err.toString().contains("requires TLS"), err.toString());
        }
    }
}
