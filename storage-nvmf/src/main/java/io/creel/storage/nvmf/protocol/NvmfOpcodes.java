package io.creel.storage.nvmf.protocol;

import io.creel.common.protocol.TierOpcode;
import io.creel.common.protocol.TierOpcodeSource;
import java.util.List;

/**
 * The requests only the "nvmf" tier serves, declared here rather than in {@code common}'s core
 * {@link io.creel.common.protocol.Opcode} enum. Registered as a {@link TierOpcodeSource}, so every
 * process with this module on its class path decodes them.
 */
public final class NvmfOpcodes implements TierOpcodeSource {
    /**
     * Claim a block for an allocation's tag without writing bytes, for a client that writes the block
     * at the target itself ({@link BlockClaimRequest}; the reply is empty). Code 22, as it always was
     * on the wire.
     */
    public static final TierOpcode BLOCK_CLAIM = new TierOpcode(22, "BLOCK_CLAIM", "nvmf");

    /** For {@link java.util.ServiceLoader}; the opcodes are the static fields. */
    public NvmfOpcodes() {
    }

    @Override
    public List<TierOpcode> opcodes() {
        return List.of(BLOCK_CLAIM);
    }
}
