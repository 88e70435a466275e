package io.creel.namenode.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.NodeAccess;
import io.creel.common.security.Identity;
import java.util.List;

/**
 * Who may read or write a node, POSIX-style: the superuser may do anything; otherwise the owner's
 * bits apply to the owner, the group's to a member of the node's group, the others' to everyone
 * else — the first class that matches decides, as in POSIX (an owner whose own bits say no is
 * refused even if the group's say yes). Execute bits are kept but not enforced.
 */
public final class AccessRule {
    /** What an operation needs of a node. */
    public enum Need {
        READ(4, "read"),
        WRITE(2, "write");

        private final int bit;
        private final String verb;

        Need(int bit, String verb) {
            this.bit = bit;
            this.verb = verb;
        }
    }

    private AccessRule() {
    }

    /** Whether {@code who}, in {@code groups}, may {@code need} a node with access {@code a}. */
    public static boolean allows(Identity who, List<String> groups, NodeAccess a, Need need) {
        if (who.superuser()) {
            return true;
        }
        int bits = who.name().equals(a.owner()) ? a.mode() >> 6 : groups.contains(a.group()) ? a.mode() >> 3 : a.mode();
        return (bits & need.bit) != 0;
    }

    /**
     * Fails PERMISSION_DENIED, naming the identity, what it wanted ({@code what}: "create /a/b"),
     * the node {@code path} that refused and that node's access, unless {@link #allows}.
     */
    public static void check(Identity who, List<String> groups, NodeAccess a, Need need, String path, String what) {
        if (!allows(who, groups, a, need)) {
            throw new CreelException(ErrorCode.PERMISSION_DENIED, "identity " + who.name() + " may not " + what
                    + ": it needs " + need.verb + " permission on " + path + " (owner " + a.owner() + ", group "
                    + a.group() + ", mode " + NodeAccess.modeText(a.mode()) + ")");
        }
    }
}
