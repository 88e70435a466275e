package io.creel.namenode.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.NodeAccess;
import io.creel.common.security.Identity;
import io.creel.namenode.security.AccessRule.Need;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The permission rule: POSIX's first matching class decides, the superuser passes, refusals say who and where. */
class AccessRuleTest {
    private static final Identity ALICE = Identity.named("alice", "a".repeat(32));
    private static final Identity BOB = Identity.named("bob", "b".repeat(32));

    @Test
    void theFirstMatchingClassDecides() {
        NodeAccess a = new NodeAccess("alice", "eng", 0460); // owner r--, group rw-, others ---
        assertTrue(AccessRule.allows(ALICE, List.of("eng"), a, Need.READ));
        assertFalse(AccessRule.allows(ALICE, List.of("eng"), a, Need.WRITE), "the owner's own bits, not the group's");
        assertTrue(AccessRule.allows(BOB, List.of("eng"), a, Need.WRITE));
        assertFalse(AccessRule.allows(BOB, List.of("ops"), a, Need.READ));
        assertTrue(AccessRule.allows(BOB, List.of(), new NodeAccess("alice", "eng", 0004), Need.READ));
        assertTrue(AccessRule.allows(Identity.CLUSTER, List.of(), new NodeAccess("alice", "eng", 0), Need.WRITE));
        assertFalse(AccessRule.allows(ALICE, List.of(), new NodeAccess("alice", "eng", 0111), Need.READ),
                "execute grants nothing");
    }

    @Test
    void aRefusalNamesTheIdentityTheOperationAndTheNode() {
        CreelException e = assertThrows(CreelException.class, () -> AccessRule.check(BOB, List.of(),
                new NodeAccess("alice", "eng", 0750), Need.READ, "/home/alice", "look up /home/alice/f"));
        assertEquals(ErrorCode.PERMISSION_DENIED, e.code());
        assertEquals("identity bob may not look up /home/alice/f: it needs read permission on /home/alice (owner "
                + "alice, group eng, mode rwxr-x---)", e.getMessage());
    }

    @Test
    void modesParseAsChmodTakesThem() {
        assertEquals(0750, NodeAccess.parseMode("750"));
        assertEquals(0644, NodeAccess.parseMode("0644"));
        assertEquals("rw-r-----", NodeAccess.modeText(0640));
        for (String bad : new String[] {"", "8", "1777", "rwx", "-1", "07777", null}) {
            assertThrows(IllegalArgumentException.class, () -> NodeAccess.parseMode(bad), String.valueOf(bad));
        }
    }
}
