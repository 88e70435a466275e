package io.creel.bench.user;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.minicluster.MiniCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The fresh client's transfers, run in this JVM: every byte is counted, on both data paths. */
class FreshClientMainTest {
    @TempDir
    Path tmp;

    private MiniCluster cluster;

    @BeforeEach
    void start() {
        cluster = MiniCluster.builder().dram(64L << 20).disk(0).servers(1, 0).temporaryDirectories().start();
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private String[] args(CreelConf conf, boolean tcp, String... positional) {
        List<String> all = new ArrayList<>(List.of(positional));
        all.addAll(FreshClientMain.confArguments(conf, tcp));
        return all.toArray(String[]::new);
    }

    @ParameterizedTest(name = "over tcp: {0}")
    @ValueSource(booleans = {false, true})
    void aPutThenAGetMoveEveryByteOfAFileLargerThanOneChunk(boolean tcp) throws Exception {
        long size = 2L * FreshClientMain.CHUNK + 12345; // two whole chunks and a partial one
        Path local = tmp.resolve("source");
        byte[] bytes = new byte[(int) size];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31);
        }
        Files.write(local, bytes);
        String path = "/fresh-" + tcp;
        TransferResult put = FreshClientMain.run(args(cluster.clientConf(), tcp, "put", local.toString(), path));
        assertEquals(size, put.bytes());
        TransferResult get = FreshClientMain.run(args(cluster.clientConf(), tcp, "get", path));
        assertEquals(size, get.bytes());
    }

    @Test
    void badArgumentsAreRefusedWithTheUsage() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FreshClientMain.run(new String[] {"copy", "/x"}));
        assertTrue(e.getMessage().startsWith("usage: get PATH | put LOCAL PATH"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> FreshClientMain.run(new String[] {"get", "/x", "--conf"}));
    }
}
