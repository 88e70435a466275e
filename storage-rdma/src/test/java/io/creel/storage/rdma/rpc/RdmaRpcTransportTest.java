package io.creel.storage.rdma.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.rpc.RpcTransport;
import io.creel.common.rpc.RpcTransports;
import io.creel.storage.rdma.fake.FakeRdmaNetwork;
import io.creel.storage.rdma.tier.RdmaFabric;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** rdma:// is found by its scheme, and where RDMA is missing or off it says so instead of trying. */
class RdmaRpcTransportTest {
    private static RpcTransport.Context context(CreelConf conf) {
        return new RpcTransport.Context(conf, null, 1 << 20, Duration.ofSeconds(5), Duration.ofSeconds(5));
    }

    @Test
    void theRdmaSchemeIsServedByThisModule() {
        assertTrue(RpcTransports.forScheme("rdma") instanceof RdmaRpcTransport);
        assertTrue(RpcTransports.schemes().contains("rdma"));
        assertEquals(new HostPort("rdma", "10.0.2.15", 9060), HostPort.parse("rdma://10.0.2.15:9060"));
        assertEquals("rdma://10.0.2.15:9060", HostPort.parse("rdma://10.0.2.15:9060").toString());
    }

    @Test
    void withoutRdmaConnectingAndListeningFailSayingWhatIsMissing() {
        RdmaRpcTransport t = new RdmaRpcTransport(new RdmaFabric(new FakeRdmaNetwork(),
                () -> "no RDMA device: /sys/class/infiniband lists none"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> t.connect(
                HostPort.parse("rdma://10.0.2.15:9060"), context(CreelConf.defaults())).get(10, TimeUnit.SECONDS));
        CreelException c = (CreelException) e.getCause();
        assertEquals(ErrorCode.UNAVAILABLE, c.code());
        assertTrue(c.getMessage().contains("cannot connect to rdma://10.0.2.15:9060: RDMA is not usable in this "
                + "process: no RDMA device"), c.getMessage());
        CreelException l = assertThrows(CreelException.class, () -> t.listen("namenode", "0.0.0.0", 9060,
                call -> { }, context(CreelConf.defaults())));
        assertEquals(ErrorCode.UNAVAILABLE, l.code());
        assertTrue(l.getMessage().contains("namenode: cannot serve rdma://0.0.0.0:9060"), l.getMessage());
    }

    @Test
    void switchedOffItSaysSo() {
        RdmaRpcTransport t = new RdmaRpcTransport(new RdmaFabric(new FakeRdmaNetwork(), () -> null));
        CreelConf off = CreelConf.of(Map.of("creel.rdma.enabled", "false"));
        ExecutionException e = assertThrows(ExecutionException.class, () -> t.connect(
                HostPort.parse("rdma://h:1"), context(off)).get(10, TimeUnit.SECONDS));
        assertTrue(e.getCause().getMessage().contains("creel.rdma.enabled is false"), e.getCause().getMessage());
    }
}
