package io.creel.storage.nvmf.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.creel.storage.nvmf.io.ByteRangeIo;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class RealTargetSmokeTest {
    @Test
    void smoke() throws Exception {
        NvmeTcpEndpoint ep = RealTarget.require();
        try (NvmeTcpEventLoops loops = NvmeTcpEventLoops.nio(2, "smoke");
             NvmeTcpController c = NvmeTcpController.connect(ep, NvmeTcpOptions.defaults(), loops).get(20, TimeUnit.SECONDS)) {
            System.out.println(c + " " + c.identity() + " " + c.capabilities() + " v" + c.version());
            System.out.println(c.activeNamespaces().get(5, TimeUnit.SECONDS));
            NvmeNamespace ns = c.namespace(1).get(5, TimeUnit.SECONDS);
            System.out.println(ns.identity() + " max " + ns.maxTransferBytes());
            ByteRangeIo io = new ByteRangeIo(ns);
            byte[] data = new byte[100_000];
            new Random(1).nextBytes(data);
            io.write(12345, ByteBuffer.wrap(data)).get(10, TimeUnit.SECONDS);
            ByteBuffer back = ByteBuffer.allocate(data.length);
            io.read(12345, back).get(10, TimeUnit.SECONDS);
            assertArrayEquals(data, back.array());
        }
    }
}
