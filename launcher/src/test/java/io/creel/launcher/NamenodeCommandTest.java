package io.creel.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which partition a namenode started without --index serves: only one it can be sure of. */
class NamenodeCommandTest {
    private static final List<HostPort> TWO = List.of(new HostPort("nn1", 9060), new HostPort("nn2", 9060));

    @Test
    void aSingleEntryIsThisNamenodeWhereverItRuns() {
        assertEquals(0, NamenodeCommand.localEntry(List.of(new HostPort("elsewhere", 9060)), h -> false));
    }

    @Test
    void ofSeveralEntriesTheOneNamingThisMachineIsIt() {
        assertEquals(1, NamenodeCommand.localEntry(TWO, Set.of("nn2")::contains));
    }

    @Test
    void noEntryNamingThisMachineIsRefusedAskingForIndex() {
        CreelException e = assertThrows(CreelException.class, () -> NamenodeCommand.localEntry(TWO, h -> false));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains("none names this machine"), e.getMessage());
        assertTrue(e.getMessage().contains("--index I (0..1)"), e.getMessage());
    }

    @Test
    void twoEntriesNamingThisMachineAreRefusedNamingBoth() {
        CreelException e = assertThrows(CreelException.class, () -> NamenodeCommand.localEntry(TWO, h -> true));
        assertTrue(e.getMessage().contains("entries [0, 1] name this machine"), e.getMessage());
        assertTrue(e.getMessage().contains("(nn1:9060, nn2:9060)"), e.getMessage());
    }

    @Test
    void addressesOfThisMachineAreFoundLoopbackIncluded() {
        // 192.0.2.1 is a documentation address no machine has.
        assertEquals(1, NamenodeCommand.localEntry(List.of(new HostPort("192.0.2.1", 9060),
                new HostPort("127.0.0.1", 9061))));
    }
}
