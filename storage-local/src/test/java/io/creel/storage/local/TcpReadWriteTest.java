package io.creel.storage.local;

import static io.creel.storage.local.TestServer.BLOCK;
import static io.creel.storage.local.TestServer.failureCode;
import static io.creel.storage.local.TestServer.pattern;
import static io.creel.storage.local.TestServer.read;
import static io.creel.storage.local.TestServer.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.BlockLocation;
import io.creel.common.protocol.BlockReadRequest;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.rpc.RpcConnection;
import io.creel.storage.spi.BlockTransport;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Both tiers, reached over TCP: byte-granular reads and writes, tags, and range rules. */
class TcpReadWriteTest {
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void bytesWrittenAtAnyOffsetAndLengthReadBackExactly(String tier) {
        try (TestServer s = TestServer.start(tier, dir); BlockTransport tcp = s.transport("tcp")) {
            BlockLocation b = s.at(5, 100);
            byte[] model = new byte[BLOCK];
            int[][] ranges = {
                {0, 1}, {1, 2}, {511, 3}, {4093, 7}, {4096, 4096}, {10_000, 123_457}, {BLOCK - 1, 1},
                {BLOCK - 4097, 4097}, {3, 0}, {700_001, 1},
            };
            int seed = 1;
            for (int[] r : ranges) {
                byte[] bytes = pattern(r[1], seed++);
                write(tcp, b, r[0], bytes);
                System.arraycopy(bytes, 0, model, r[0], bytes.length);
            }
            for (int[] r : ranges) {
                assertArrayEquals(Arrays.copyOfRange(model, r[0], r[0] + r[1]), read(tcp, b, r[0], r[1]),
                        "bytes " + r[0] + "+" + r[1]);
            }
            assertArrayEquals(Arrays.copyOfRange(model, 4000, 9000), read(tcp, b, 4000, 5000),
                    "a read across sector boundaries and earlier writes");
            assertArrayEquals(model, read(tcp, b, 0, BLOCK), "the whole block");

            byte[] whole = pattern(BLOCK, 99);
            write(tcp, b, 0, whole);
            assertArrayEquals(whole, read(tcp, b, 0, BLOCK), "a whole-block write");
            assertArrayEquals(new byte[BLOCK], read(tcp, s.at(6, 0), 0, BLOCK),
                    "a neighbour block (never claimed: tag 0) is untouched");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void aStaleTagIsRefusedAndTheCurrentTagWorks(String tier) {
        try (TestServer s = TestServer.start(tier, dir); BlockTransport tcp = s.transport("tcp")) {
            write(tcp, s.at(2, 10), 0, pattern(100, 1));
            write(tcp, s.at(2, 20), 50, pattern(100, 2)); // the block was allocated again, with a newer tag

            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> read(tcp, s.at(2, 10), 0, 10)), "read, old tag");
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> write(tcp, s.at(2, 10), 0, new byte[10])),
                    "write, old tag");
            assertArrayEquals(pattern(100, 2), read(tcp, s.at(2, 20), 50, 100), "the old writer changed nothing");
            assertEquals(ErrorCode.STALE_BLOCK, failureCode(() -> read(tcp, s.at(2, 30), 0, 10)),
                    "a read with a tag the block has not been claimed for");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"dram", "disk"})
    void rangesOutsideTheBlockOrServerAreInvalidArguments(String tier) {
        try (TestServer s = TestServer.start(tier, dir); BlockTransport tcp = s.transport("tcp")) {
            write(tcp, s.at(0, 1), 0, new byte[1]);
            assertEquals(ErrorCode.INVALID_ARGUMENT, failureCode(() -> read(tcp, s.at(0, 1), BLOCK - 10, 11)));
            assertEquals(ErrorCode.INVALID_ARGUMENT, failureCode(() -> write(tcp, s.at(0, 1), BLOCK, new byte[1])));
            assertEquals(ErrorCode.INVALID_ARGUMENT, failureCode(() -> read(tcp, s.at(16, 1), 0, 1)));

            // The server checks too, whatever a client sends.
            RpcConnection raw = TestServer.await(s.connections.get(new HostPort("127.0.0.1", s.info().port())));
            assertEquals(ErrorCode.INVALID_ARGUMENT, failureCode(() -> TestServer.await(raw.call(Opcode.BLOCK_READ,
                    new BlockReadRequest(0, 1, BLOCK - 10, 11), body -> null))), "offset+length beyond the block");
            assertEquals(ErrorCode.INVALID_ARGUMENT, failureCode(() -> TestServer.await(raw.call(Opcode.BLOCK_READ,
                    new BlockReadRequest(16, 1, 0, 1), body -> null))), "block beyond the count");
            assertEquals(ErrorCode.INVALID_ARGUMENT, failureCode(() -> TestServer.await(raw.call(Opcode.STATUS,
                    Empty.INSTANCE, body -> null))), "a namenode opcode");
            assertArrayEquals(new byte[1], read(tcp, s.at(0, 1), 0, 1), "the connection still serves");
        }
    }
}
