package io.creel.common.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import io.creel.common.protocol.LookupRequest;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.RegisterReply;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RPC transports by address scheme: creel:// is TCP, another scheme is the transport on the class
 * path that serves it, and a scheme without one fails clearly, at parse and at connect.
 */
class RpcTransportsTest {
    private final EventLoops loops = EventLoops.create(CreelConf.defaults().with(ConfKeys.NET_EVENT_LOOPS, "2"), "t");

    @AfterEach
    void close() {
        loops.close();
    }

    private RpcTransport.Context context() {
        return new RpcTransport.Context(CreelConf.defaults(), loops, 1 << 20, Duration.ofSeconds(5),
                Duration.ofSeconds(10));
    }

    @Test
    void addressesCarryTheirSchemeAndBareOnesAreTcp() {
        assertEquals(new HostPort("creel", "h", 1), HostPort.parse("h:1"));
        assertEquals(new HostPort("h", 1), HostPort.parse("creel://h:1"));
        HostPort other = HostPort.parse("relabelled://10.0.0.1:9060");
        assertEquals("relabelled", other.scheme());
        assertEquals("relabelled://10.0.0.1:9060", other.toString());
        assertEquals("10.0.0.1:9060", other.withScheme("creel").toString(), "TCP addresses print as host:port");
        assertTrue(!other.equals(other.withScheme("creel")), "the same host and port over two transports differ");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HostPort.parse("rdmaa://h:1"));
        assertTrue(e.getMessage().contains("there are: creel, relabelled"), e.getMessage());
    }

    @Test
    void theTransportOfEachSchemeIsFoundAndAnUnknownOneIsNamed() {
        assertEquals(List.of("creel", "relabelled"), RpcTransports.schemes());
        assertTrue(RpcTransports.forScheme("relabelled") instanceof RelabelledTransport);
        CreelException e = assertThrows(CreelException.class, () -> RpcTransports.forScheme("rdma"));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("no RPC transport for rdma:// addresses on the class path (there are: "
                + "creel, relabelled); rdma:// comes with creel-storage-rdma"), e.getMessage());
    }

    @Test
    void connectionsReachEachAddressWithTheTransportOfItsSchemeAndTheHandlerSeesTheSameCalls() throws Exception {
        CompletableFuture<RpcPeer> closed = new CompletableFuture<>();
        RequestHandler handler = new RequestHandler() {
            @Override
            public void handle(RpcCall call) {
                call.reply(new RegisterReply(LookupRequest.decode(call.body()).path().length(), 0));
            }

            @Override
            public void connectionClosed(RpcPeer peer) {
                closed.complete(peer);
            }
        };
        int listens = RelabelledTransport.LISTENS.get();
        try (RpcListener server = RpcTransports.forScheme("relabelled").listen("test", "127.0.0.1", 0, handler,
                context())) {
            assertEquals(listens + 1, RelabelledTransport.LISTENS.get());
            int connects = RelabelledTransport.CONNECTS.get();
            try (RpcConnections connections = new RpcConnections(loops, CreelConf.defaults())) {
                HostPort at = new HostPort("relabelled", "127.0.0.1", server.port());
                RpcConnection c = connections.get(at).get(10, TimeUnit.SECONDS);
                assertSame(c, connections.get(at).get(10, TimeUnit.SECONDS), "one shared connection per address");
                RegisterReply r = c.call(Opcode.LOOKUP, new LookupRequest("/abc", false), RegisterReply::decode)
                        .get(10, TimeUnit.SECONDS);
                assertEquals(4, r.serverId());
                assertEquals(connects + 1, RelabelledTransport.CONNECTS.get());
                // The same server over plain TCP is another connection.
                RpcConnection tcp = connections.get(at.withScheme("creel")).get(10, TimeUnit.SECONDS);
                assertTrue(tcp != c);
                assertEquals(connects + 1, RelabelledTransport.CONNECTS.get());
            }
            closed.get(10, TimeUnit.SECONDS); // the handler heard the connection close
        }
    }

    @Test
    void aSchemeWithoutATransportFailsTheConnectNamingIt() {
        try (RpcConnections connections = new RpcConnections(loops, CreelConf.defaults())) {
            CompletableFuture<RpcConnection> f = connections.get(new HostPort("nosuch", "h", 1));
            assertTrue(f.isCompletedExceptionally());
            CreelException e = (CreelException) assertThrows(Exception.class, f::join).getCause();
            assertEquals(ErrorCode.CONFIGURATION, e.code());
        }
    }
}
