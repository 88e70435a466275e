package io.creel.bench.baseline;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A minimal RESP2 client connection over a plain socket: commands are written as arrays of bulk
 * strings, replies read one at a time in order, so several commands may be in flight (pipelining).
 */
public final class RespConnection {
    private final InputStream in;
    private final OutputStream out;

    public RespConnection(Socket socket) throws IOException {
        socket.setTcpNoDelay(true);
        this.in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
        this.out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
    }

    /** Writes a command of text arguments and flushes. */
    public void send(String... args) throws IOException {
        writeHeader(args.length);
        for (String a : args) {
            writeBulk(a.getBytes(StandardCharsets.UTF_8));
        }
        out.flush();
    }

    /** Writes {@code SET key value} and flushes. */
    public void sendSet(byte[] key, byte[] value) throws IOException {
        writeHeader(3);
        writeBulk(SET);
        writeBulk(key);
        writeBulk(value);
        out.flush();
    }

    /** Writes {@code GET key} and flushes. */
    public void sendGet(byte[] key) throws IOException {
        writeHeader(2);
        writeBulk(GET);
        writeBulk(key);
        out.flush();
    }

    private static final byte[] SET = "SET".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] GET = "GET".getBytes(StandardCharsets.US_ASCII);

    private void writeHeader(int n) throws IOException {
        out.write('*');
        out.write(Integer.toString(n).getBytes(StandardCharsets.US_ASCII));
        out.write('\r');
        out.write('\n');
    }

    private void writeBulk(byte[] b) throws IOException {
        out.write('$');
        out.write(Integer.toString(b.length).getBytes(StandardCharsets.US_ASCII));
        out.write('\r');
        out.write('\n');
        out.write(b);
        out.write('\r');
        out.write('\n');
    }

    /**
     * Reads one reply: a simple string or integer as text, a bulk string's length as text (its
     * bytes are consumed), null for a nil bulk string. An error reply throws.
     */
    public String readReply() throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("redis closed the connection");
        }
        String line = readLine();
        switch (type) {
            case '+', ':' -> {
                return line;
            }
            case '-' -> throw new IOException("redis error: " + line);
            case '$' -> {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                long skipped = 0;
                while (skipped < n + 2) {
                    long k = in.skip(n + 2 - skipped);
                    if (k <= 0) {
                        if (in.read() < 0) {
                            throw new EOFException("redis closed the connection inside a reply");
                        }
                        k = 1;
                    }
                    skipped += k;
                }
                return line;
            }
            default -> throw new IOException("unexpected RESP reply type '" + (char) type + "'");
        }
    }

    private String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new EOFException("redis closed the connection inside a reply");
            }
            sb.append((char) c);
        }
        if (in.read() != '\n') {
            throw new IOException("malformed RESP line: " + sb);
        }
        return sb.toString();
    }
}
