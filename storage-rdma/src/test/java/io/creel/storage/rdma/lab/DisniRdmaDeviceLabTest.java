package io.creel.storage.rdma.lab;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.rdma.RdmaAvailability;
import io.creel.storage.rdma.RdmaConnection;
import io.creel.storage.rdma.RdmaDeviceContract;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaProvider;
import io.creel.storage.rdma.RdmaSettings;
import io.creel.storage.rdma.disni.DisniRdmaProvider;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The device contract on real RDMA: DiSNI over Creel's libdisni.so, two devices on the lab's rxe0
 * connected to each other. Plus one-sided writes and reads of many sizes and alignments.
 */
@RdmaLab
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

    @Override
    protected RdmaSettings settings() {
        return super.settings().withConnectTimeout(Duration.ofSeconds(3));
    }

    @Test
    void theDeviceIsNamedAfterTheSystemsRdmaDevice() {
        String expected = RdmaAvailability.deviceFor(address).map(RdmaAvailability.Device::name).orElseThrow();
        assertTrue(server.name().equals(expected), server.name() + " vs " + expected);
    }

    @Test
    void openingADeviceOnAnAddressThisMachineDoesNotHaveSaysSo() throws Exception {
        InetAddress elsewhere = InetAddress.getByName("192.0.2.1"); // TEST-NET-1: never assigned here
        RdmaException e = assertThrows(RdmaException.class, () -> provider().open(elsewhere, settings()));
        assertEquals(RdmaException.Kind.NOT_AVAILABLE, e.kind());
        assertTrue(e.getMessage().contains("192.0.2.1 is not the address of an RDMA interface"), e.getMessage());
    }

    @Test
    void connectingToAMachineThatIsNotThereFailsNamingIt() throws Exception {
        byte[] near = address.getAddress();
        near[3] = (byte) (near[3] == 99 ? 98 : 99); // same subnet, nobody answers ARP
        InetSocketAddress ghost = new InetSocketAddress(InetAddress.getByAddress(near), 4791);
        RdmaException e = failure(client.connect(ghost));
        assertTrue(e.kind() == RdmaException.Kind.UNREACHABLE || e.kind() == RdmaException.Kind.TIMEOUT,
                e.kind() + ": " + e.getMessage());
        assertEquals(ghost, e.peer());
        assertTrue(e.getMessage().startsWith("connect to " + ghost), e.getMessage());
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
