package io.creel.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.transport.TransportKeys;
import java.util.List;
import org.junit.jupiter.api.Test;

/** bench --transport NAME: the clients use that transport alone, or the run stops at once saying why. */
class TransportOptionTest {
    @Test
    void aTransportOnTheClassPathBecomesTheOnlyOneTheClientsUse() {
        CreelConf c = BenchCommand.onlyOver(CreelConf.defaults(), "tcp");
        assertEquals(List.of("tcp"), c.get(TransportKeys.TRANSPORTS));
    }

    @Test
    void aTransportThatIsNotThereIsNamedWithTheOnesThatAre() {
        CreelException e = assertThrows(CreelException.class, () -> BenchCommand.onlyOver(CreelConf.defaults(),
                "infiniband"));
        assertEquals(ErrorCode.INVALID_ARGUMENT, e.code());
        assertTrue(e.getMessage().contains("--transport infiniband: no such transport on the class path (there are: "),
                e.getMessage());
        assertTrue(e.getMessage().contains("tcp"), e.getMessage());
    }

    @Test
    void aTransportThatCannotBeUsedHereStopsTheRunSayingWhy() {
        CreelException e = assertThrows(CreelException.class, () -> BenchCommand.onlyOver(CreelConf.defaults(),
                "unusable"));
        assertEquals(ErrorCode.UNAVAILABLE, e.code());
        assertEquals("--transport unusable cannot be used here: no /dev/infiniband: this kernel offers no RDMA",
                e.getMessage());
    }
}
