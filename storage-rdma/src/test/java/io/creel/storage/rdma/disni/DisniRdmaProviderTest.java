package io.creel.storage.rdma.disni;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.creel.rdma.RdmaAvailability;
import io.creel.storage.rdma.RdmaException;
import io.creel.storage.rdma.RdmaSettings;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class DisniRdmaProviderTest {
    @Test
    void whereRdmaIsMissingOpeningFailsNotAvailableWithWhatIsMissing() {
        RdmaAvailability here = RdmaAvailability.detect();
        assumeFalse(here.available(), "this machine has RDMA");
        RdmaException e = assertThrows(RdmaException.class,
                () -> new DisniRdmaProvider().open(InetAddress.getLoopbackAddress(), RdmaSettings.defaults()));
        assertEquals(RdmaException.Kind.NOT_AVAILABLE, e.kind());
        assertEquals(here.message(), e.getMessage());
    }
}
