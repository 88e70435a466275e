package io.creel.bench.scope;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.common.error.CreelException;
import io.creel.common.namespace.NodeType;
import io.creel.minicluster.MiniCluster;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class RunNamespaceTest {
    private MiniCluster cluster;
    private CreelClient client;

    @BeforeEach
    void start() {
        cluster = MiniCluster.builder().dram(32L << 20).disk(0).servers(1, 0).temporaryDirectories().start();
        client = CreelClient.connect(cluster.clientConf());
    }

    @AfterEach
    void stop() {
        if (client != null) {
            client.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private List<String> root() {
        return client.list("/").join().stream().map(e -> e.path()).toList();
    }

    @Test
    void runsGetTheirOwnTopLevelNames() {
        String a = RunNamespace.newRunId();
        String b = RunNamespace.newRunId();
        assertNotEquals(a, b);
        assertEquals(8, a.length());
        RunNamespace ns = new RunNamespace(a, () -> client, Duration.ofSeconds(30));
        assertEquals("/bench-" + a + "-ns", ns.path("ns"));
        assertEquals(List.of("/bench-" + a + "-ns"), ns.topLevelPaths());
        assertThrows(IllegalArgumentException.class, () -> ns.path("Not/Allowed"));
        assertThrows(IllegalArgumentException.class, () -> ns.track("/elsewhere/x"));
        assertThrows(IllegalArgumentException.class, () -> new RunNamespace("../x", () -> client, Duration.ZERO));
    }

    @Test
    void closingRemovesEverythingTheRunMadeAndNothingElse() {
        client.create("/users-data", NodeType.DIRECTORY).join();
        RunNamespace ns = new RunNamespace(RunNamespace.newRunId(), () -> client, Duration.ofSeconds(30));
        String top = ns.path("ns");
        client.create(top, NodeType.DIRECTORY).join();
        for (int g = 0; g < 3; g++) {
            String group = top + "/g" + g;
            ns.track(group);
            client.create(group, NodeType.DIRECTORY).join();
            for (int i = 0; i < 5; i++) {
                client.create(group + "/d" + i, NodeType.DIRECTORY).join();
            }
        }
        String table = ns.path("create-50x16-r0");
        client.create(table, NodeType.TABLE).join();
        client.create(table + "/k1", NodeType.KEYVALUE).thenCompose(n -> n.writer().close()).join();
        ns.path("never-created"); // tracked before it would have been made: missing is fine
        ns.close();
        assertEquals(List.of("/users-data"), root());
        ns.close(); // nothing left to do
    }

    @Test
    void aRemovalThatFailsSaysWhatIsLeftBehind() {
        RunNamespace ns = new RunNamespace(RunNamespace.newRunId(), () -> client, Duration.ofSeconds(5));
        String top = ns.path("ns");
        client.create(top, NodeType.DIRECTORY).join();
        cluster.close();
        cluster = null;
        CreelException e = assertThrows(CreelException.class, ns::close);
        assertTrue(e.getMessage().contains("left behind: " + top), e.getMessage());
    }
}
