package io.creel.storage.nvmf.tier;

import static io.creel.storage.nvmf.tier.NvmfServerFixture.BLOCK;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.pattern;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.read;
import static io.creel.storage.nvmf.tier.NvmfServerFixture.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import io.creel.storage.nvmf.target.Fabric;
import io.creel.storage.spi.BlockTransport;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The nvmf tier on a real NVMe-oF target (the lab guest's Linux kernel target): the server connected
 * over one fabric, a client reaching the target directly over the same or the other one. Bytes of
 * every alignment read back at the target and through the server, and a freed-and-reused block is
 * refused either way. Skipped unless a target is named ({@link LabTarget}).
 */
@Tag("nvmf-lab")
class RealTargetTierLabTest {
    /** The fabrics of server and client this run covers (without RDMA only NVMe/TCP: LabTarget#rdmaCovered). */
    static Stream<Arguments> everyPair() {
        return LabTarget.fabricPairs("tcp, tcp", "rdma, rdma", "tcp, rdma", "rdma, tcp");
    }

    static Stream<Arguments> samePair() {
        return LabTarget.fabricPairs("tcp, tcp", "rdma, rdma");
    }

    @ParameterizedTest(name = "server over {0}, client over {1}")
    @MethodSource("everyPair")
    void bytesOfEveryAlignmentReadBackDirectlyAndThroughTheServer(String serverFabric, String clientFabric) {
        Fabric server = Fabric.parse(serverFabric);
        Fabric client = Fabric.parse(clientFabric);
        try (NvmfServerFixture f = NvmfServerFixture.onRealTarget(
                NvmfServerFixture.baseConf(LabTarget.settings(server, client)))) {
            BlockTransport direct = f.direct(client);
            assertEquals("nvmf-" + client.text(), direct.name());
            BlockTransport tcp = f.throughServer();
            long tag = System.nanoTime(); // newer than anything an earlier run left on the namespace's tags
            BlockLocation at = f.at(3, tag);
            byte[] model = new byte[BLOCK];
            int[][] ranges = {{0, 1}, {1, 511}, {511, 2}, {512, 4096}, {4095, 8193}, {65_535, 300_001},
                    {BLOCK - 1, 1}, {0, BLOCK}, {7, BLOCK - 7}};
            int seed = 0;
            for (int[] r : ranges) {
                byte[] bytes = pattern(r[1], ++seed);
                // Alternate the paths: each must see what the other wrote.
                write(seed % 2 == 0 ? direct : tcp, at, r[0], bytes);
                System.arraycopy(bytes, 0, model, r[0], r[1]);
                assertArrayEquals(bytes, read(seed % 2 == 0 ? tcp : direct, at, r[0], r[1]),
                        "range " + r[0] + "+" + r[1]);
            }
            assertArrayEquals(model, read(direct, at, 0, BLOCK), "the whole block at the target");
            assertArrayEquals(model, read(tcp, at, 0, BLOCK), "and through the server");
        }
    }

    @ParameterizedTest(name = "server over {0}, client over {1}")
    @MethodSource("samePair")
    void aFreedAndReusedBlockIsRefusedNotReturned(String serverFabric, String clientFabric) {
        Fabric server = Fabric.parse(serverFabric);
        Fabric client = Fabric.parse(clientFabric);
        try (NvmfServerFixture f = NvmfServerFixture.onRealTarget(
                NvmfServerFixture.baseConf(LabTarget.settings(server, client)))) {
            BlockTransport direct = f.direct(client);
            BlockTransport tcp = f.throughServer();
            long old = System.nanoTime();
            write(direct, f.at(5, old), 0, pattern(8192, 1));
            byte[] theirs = pattern(8192, 2);
            write(direct, f.at(5, old + 1), 0, theirs);
            for (BlockTransport t : List.of(direct, tcp)) {
                CreelException e = assertThrows(CreelException.class, () -> read(t, f.at(5, old), 0, 8192));
                assertEquals(ErrorCode.STALE_BLOCK, e.code(), t.name());
                assertTrue(e.getMessage().contains("freed and reused"), e.getMessage());
                CreelException w = assertThrows(CreelException.class, () -> write(t, f.at(5, old), 0, new byte[10]));
                assertEquals(ErrorCode.STALE_BLOCK, w.code(), t.name());
            }
            assertArrayEquals(theirs, read(direct, f.at(5, old + 1), 0, 8192));
        }
    }
}
