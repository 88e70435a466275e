package io.creel.storage.rdma.lab;

import io.creel.storage.rdma.MemoryAccess;
import io.creel.storage.rdma.RdmaDevice;
import io.creel.storage.rdma.RdmaListener;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.RegisteredMemory;
import io.creel.storage.rdma.disni.DisniRdmaProvider;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * A storage-server stand-in in its own JVM, so a test can kill it: exports one registered region
 * over RDMA, prints {@code READY <port> <address> <rkey> <length>}, and serves until killed or until
 * its standard input closes.
 */
public final class ExportingServer {
    private ExportingServer() {
    }

    public static void main(String[] args) throws Exception {
        InetAddress address = InetAddress.getByName(args[0]);
        int length = Integer.parseInt(args[1]);
        try (RdmaDevice device = new DisniRdmaProvider().open(address, RdmaSettings.defaults())) {
            ByteBuffer region = ByteBuffer.allocateDirect(length);
            for (int i = 0; i < length; i++) {
                region.put(i, (byte) (i * 31 + 7));
            }
            RegisteredMemory memory = device.register(region, MemoryAccess.REMOTE_READ_WRITE);
            RdmaListener listener = device.listen(0);
            System.out.println("READY " + listener.localAddress().getPort() + " " + memory.remote().address() + " "
                    + memory.rkey() + " " + length);
            System.out.flush();
            while (System.in.read() >= 0) {
                // serve until the parent closes our input
            }
        }
    }
}
