package io.creel.storage.nvmf.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpcodeRegistry;
import io.creel.common.protocol.RequestType;
import io.creel.common.rpc.EventLoops;
import io.creel.common.rpc.RpcClient;
import io.creel.common.rpc.RpcServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** BLOCK_CLAIM is the nvmf tier's own opcode: found through its TierOpcodeSource, on the wire as code 22. */
class NvmfOpcodesTest {
    @Test
    void blockClaimIsRegisteredFromTheClassPathWithItsOldCode() {
        assertEquals(22, NvmfOpcodes.BLOCK_CLAIM.code(), "the wire value it always had");
        assertSame(NvmfOpcodes.BLOCK_CLAIM, OpcodeRegistry.installed().ofCode(22));
        assertNull(Opcode.ofCode(22), "not a core opcode");
    }

    @Test
    void blockClaimRoundTripsThroughAnRpcServer() throws Exception {
        AtomicReference<RequestType> seen = new AtomicReference<>();
        AtomicReference<BlockClaimRequest> claim = new AtomicReference<>();
        try (EventLoops loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "1"), "claim")) {
            RpcServer server = RpcServer.start("claim test", "127.0.0.1", 0, loops, 1 << 20, call -> {
                seen.set(call.opcode());
                claim.set(BlockClaimRequest.decode(call.body()));
                call.reply(Empty.INSTANCE);
            });
            try (RpcClient c = RpcClient.connect(new HostPort("127.0.0.1", server.port()), loops, 1 << 20,
                    Duration.ofSeconds(5), Duration.ofSeconds(10)).join()) {
                assertSame(Empty.INSTANCE, c.call(NvmfOpcodes.BLOCK_CLAIM, new BlockClaimRequest(4, 20), Empty::decode)
                        .get(10, TimeUnit.SECONDS));
            } finally {
                server.close();
            }
        }
        assertSame(NvmfOpcodes.BLOCK_CLAIM, seen.get(), "the server decoded code 22 as the tier's opcode");
        assertEquals(new BlockClaimRequest(4, 20), claim.get());
    }
}
