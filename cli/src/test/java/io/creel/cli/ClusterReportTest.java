package io.creel.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.text.Json;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The namenodes' answers added up: each server once, use summed over partitions, problems named. */
class ClusterReportTest {
    private static final int BS = 1 << 20;

    private static StorageServerInfo server(String host, String tier, long blocks, long token) {
        return StorageServerInfo.of(7, tier, tier, host, 9100, host, blocks, BS, token, Map.of());
    }

    @Test
    void twoNamenodesCountCapacityOnceAndAddTheirUse() {
        StorageServerInfo dram = server("a", "dram", 10, 1);
        StatusReply nn0 = new StatusReply(5, List.of("dram"), List.of(new ServerStatus(dram, "live", 3, 7, 1, 10)));
        StatusReply nn1 = new StatusReply(4, List.of("dram"), List.of(new ServerStatus(dram, "live", 2, 8, 0, 10)));
        ClusterReport r = ClusterReport.of(List.of("nn0:1", "nn1:2"), List.of(nn0, nn1));
        String json = Json.write(r.toJson(null));
        assertTrue(json.contains("\"capacityBytes\":" + 10L * BS + ",\"usedBytes\":" + 5L * BS + ",\"freeBytes\":"
                + 4L * BS + ",\"pendingBytes\":" + BS), json);
        assertTrue(json.contains("\"namenodes\":[{\"address\":\"nn0:1\",\"nodes\":5,"), json);
        assertEquals(List.of(), r.deadServers());
        assertEquals(List.of(), r.fullClasses());
    }

    @Test
    void aDeadServerAndAFullClassAreNamedAndADeadServersSpaceDoesNotCount() {
        StorageServerInfo dram = server("a", "dram", 4, 1);
        StorageServerInfo disk = server("b", "disk", 8, 2);
        StatusReply nn = new StatusReply(1, List.of("dram", "disk"), List.of(
                new ServerStatus(dram, "live", 4, 0, 0, 10), new ServerStatus(disk, "dead", 1, 7, 0, 99_000)));
        ClusterReport r = ClusterReport.of(List.of("nn0:1"), List.of(nn));
        assertEquals(List.of("dram"), r.fullClasses());
        assertEquals(List.of("b:9100"), r.deadServers());
        String json = Json.write(r.toJson(null));
        assertTrue(json.contains("{\"class\":\"disk\",\"servers\":0,\"capacityBytes\":0,"), json);
        assertTrue(json.contains("\"deadServers\":[\"b:9100\"],\"fullClasses\":[\"dram\"]"), json);
        StringWriter text = new StringWriter();
        r.print(new PrintWriter(text), Long::toString);
        assertTrue(text.toString().lines().anyMatch(l -> l.trim().matches("dram\\s+4194304\\s+4194304\\s+0\\s+0")),
                "the class table keeps its columns for scripts: " + text);
        assertTrue(text.toString().contains(Long.toString(4L * BS)), "--bytes prints byte counts: " + text);
    }
}
