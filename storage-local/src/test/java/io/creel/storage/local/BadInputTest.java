package io.creel.storage.local;

import static io.creel.storage.local.TestServer.pattern;
import static io.creel.storage.local.TestServer.read;
import static io.creel.storage.local.TestServer.write;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.creel.common.protocol.Opcode;
import io.creel.storage.spi.BlockTransport;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Malformed or hostile input closes that one connection; everyone else is still served. */
class BadInputTest {
    @TempDir
    Path dir;

    @Test
    void garbageBytesCloseTheConnection() throws IOException {
        try (TestServer s = TestServer.start("dram", dir)) {
            assertClosedAfter(s, out -> {
                out.writeInt(10);          // a well-formed length ...
                out.writeByte(0xEE);       // ... but an opcode that does not exist
                out.write(new byte[9]);
            });
            assertStillServes(s);
        }
    }

    @Test
    void aTruncatedRequestClosesTheConnection() throws IOException {
        try (TestServer s = TestServer.start("disk", dir)) {
            assertClosedAfter(s, out -> {
                out.writeInt(10 + 3);      // a complete frame whose read request is cut short
                out.writeByte(Opcode.BLOCK_READ.code());
                out.writeByte(0);
                out.writeLong(1);
                out.write(new byte[] {0, 0, 1});
            });
            assertClosedAfter(s, out -> {
                out.writeInt(4);           // a frame too short to hold even the header
                out.writeInt(0);
            });
            assertStillServes(s);
        }
    }

    @Test
    void anOversizedLengthFieldClosesTheConnection() throws IOException {
        try (TestServer s = TestServer.start("dram", dir)) {
            assertClosedAfter(s, out -> {
                out.writeInt(Integer.MAX_VALUE);
                out.write(new byte[64]);
            });
            assertClosedAfter(s, out -> out.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            assertClosedAfter(s, out -> out.writeInt(-5));
            assertStillServes(s);
        }
    }

    private interface Sender {
        void send(DataOutputStream out) throws IOException;
    }

    /** Sends bytes on a fresh connection and expects the server to close it (end of stream or reset). */
    private static void assertClosedAfter(TestServer s, Sender sender) throws IOException {
        try (Socket sock = new Socket("127.0.0.1", s.info().port())) {
            sock.setSoTimeout(10_000);
            DataOutputStream out = new DataOutputStream(sock.getOutputStream());
            sender.send(out);
            out.flush();
            InputStream in = sock.getInputStream();
            int first;
            try {
                first = in.read();
            } catch (SocketException reset) {
                return; // closed with unread input: a reset is also a close
            }
            assertEquals(-1, first, "the server closed the connection");
        }
    }

    private static void assertStillServes(TestServer s) {
        try (BlockTransport tcp = s.transport("tcp")) {
            byte[] bytes = pattern(1234, 9);
            write(tcp, s.at(1, 1), 17, bytes);
            assertArrayEquals(bytes, read(tcp, s.at(1, 1), 17, bytes.length));
        }
    }
}
