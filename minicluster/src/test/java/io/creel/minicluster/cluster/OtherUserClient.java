package io.creel.minicluster.cluster;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.conf.CreelConf;
import io.creel.common.namespace.NodeType;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A client run in a JVM of its own as another user ({@link PrivateFilesTest}): reads a file, writes
 * one and reads it back, and prints what it read. Arguments: the path to read, its length, then
 * {@code key=value} settings.
 */
public final class OtherUserClient {
    private OtherUserClient() {
    }

    public static void main(String[] args) {
        String path = args[0];
        int length = Integer.parseInt(args[1]);
        Map<String, String> settings = new LinkedHashMap<>();
        for (String a : Arrays.copyOfRange(args, 2, args.length)) {
            int eq = a.indexOf('=');
            settings.put(a.substring(0, eq), a.substring(eq + 1));
        }
        try (CreelClient c = CreelClient.connect(CreelConf.of(settings))) {
            ByteBuffer got = ByteBuffer.allocateDirect(length);
            c.lookup(path).join().reader().read(got).join();
            got.flip();
            System.out.println("read " + got.remaining() + " bytes, checksum " + checksum(got));
            CreelNode mine = c.create(path + "-other", NodeType.FILE).join();
            byte[] data = new byte[1 << 20];
            Arrays.fill(data, (byte) 7);
            mine.writer().write(ByteBuffer.wrap(data)).join();
            mine.writer().close().join();
            ByteBuffer back = ByteBuffer.allocate(data.length);
            c.lookup(path + "-other").join().reader().read(back).join();
            System.out.println("wrote and read back " + back.position() + " bytes, same: "
                    + Arrays.equals(data, back.array()));
        }
    }

    static long checksum(ByteBuffer b) {
        long sum = 0;
        ByteBuffer d = b.duplicate();
        while (d.hasRemaining()) {
            sum = sum * 31 + d.get();
        }
        return sum;
    }
}
