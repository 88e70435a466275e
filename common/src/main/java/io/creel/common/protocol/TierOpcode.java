package io.creel.common.protocol;

import java.util.Objects;

/**
 * A request type a tier adds for itself (the NVMe-oF tier's BLOCK_CLAIM), declared in its own module
 * rather than in the core {@link Opcode} enum, and made known to the frame decoder through a
 * {@link TierOpcodeSource}. Its code lies in the range reserved for tiers, {@link #FIRST} to
 * {@link #LAST}, which no core opcode uses; two tiers that claim the same code (or name) are refused
 * when the {@link OpcodeRegistry} is built.
 *
 * @param code  the wire value, {@link #FIRST} to {@link #LAST}; never renumbered once shipped
 * @param name  upper-case name for messages and metrics ("BLOCK_CLAIM")
 * @param owner the tier that declares it ("nvmf"), named in collision errors
 */
public record TierOpcode(int code, String name, String owner) implements RequestType {
    /** First code reserved for tiers' own requests: the data-plane row after BLOCK_READ and BLOCK_WRITE. */
    public static final int FIRST = 22;
    /** Last code reserved for tiers (the region-control row starts at 30). */
    public static final int LAST = 29;

    /** Checks the code's range and the names' spelling. */
    public TierOpcode {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(owner, "owner");
        if (code < FIRST || code > LAST) {
            throw new IllegalArgumentException(owner + "'s opcode " + name + " has code " + code
                    + ", outside the range reserved for tiers (" + FIRST + " to " + LAST + ")");
        }
        if (!name.matches("[A-Z][A-Z0-9_]*")) {
            throw new IllegalArgumentException(owner + "'s opcode name '" + name + "' is not UPPER_CASE");
        }
        if (owner.isBlank()) {
            throw new IllegalArgumentException("opcode " + name + " names no owning tier");
        }
    }

    /** The name alone, as a core opcode prints. */
    @Override
    public String toString() {
        return name;
    }
}
