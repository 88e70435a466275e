package io.creel.storage.rdma.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.storage.rdma.RdmaAvailability;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDeviceContract;
import io.creel.storage.rdma.RdmaProvider;
import io.creel.storage.rdma.disni.DisniRdmaProvider;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The device contract on real RDMA: DiSNI over Creel's libdisni.so, two devices on the lab's rxe0
 * connected to each other. Plus one-sided writes and reads of many sizes and alignments.
 */
@Tag(LabEnvironment.TAG)
class DisniRdmaDeviceLabTest extends RdmaDeviceContract {
    private static InetAddress address;

    @BeforeAll
    static void inTheLab() {
        address = LabEnvironment.requireRdma();
    }

    @Override
    protected RdmaProvider provider() {
        return new DisniRdmaProvider();
    }

    @Override
    protected InetAddress serverAddress() {
        return address;
    }

    @Override
    protected InetAddress clientAddress() {
        return address;
    }

    @Test
    void theDeviceIsNamedAfterTheSystemsRdmaDevice() {
        String expected = RdmaAvailability.deviceFor(address).map(RdmaAvailability.Device::name).orElseThrow();
        assertTrue(server.name().equals(expected), server.name() + " vs " + expected);
    }

    @Test
    void writesThenReadsOfManySizesAndAlignmentsMoveExactlyTheirBytes() throws Exception {
        RdmaConnection c = connect();
        int[] sizes = {1, 2, 3, 63, 64, 65, 511, 512, 513, 4095, 4096, 4097, 65_536, 100_003, 1 << 20, REGION / 2 - 17};
        List<long[]> placed = new ArrayList<>(); // remote offset, size, seed
        long remote = 0;
        for (int i = 0; i < sizes.length; i++) {
            int size = sizes[i];
            byte[] data = random(size, i);
            int localOffset = i % 7; // odd local alignments too
            put(buffer, localOffset, data);
            await(c.write(buffer, localOffset, exported.remote(), remote, size));
            assertArrayEquals(data, get(exported, (int) remote, size), "write of " + size + " bytes at " + remote);
            placed.add(new long[] {remote, size, i});
            remote += size + 13; // and every remote alignment: the placements do not overlap
        }
        assertTrue(remote <= REGION, "the placements fit the region");
        for (long[] p : placed) {
            int size = (int) p[1];
            put(buffer, 3, new byte[size]);
            await(c.read(buffer, 3, exported.remote(), p[0], size));
            assertArrayEquals(random(size, p[2]), get(buffer, 3, size), "read of " + size + " bytes at " + p[0]);
        }
    }
}
