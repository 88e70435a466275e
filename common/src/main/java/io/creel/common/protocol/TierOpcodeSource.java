package io.creel.common.protocol;

import java.util.List;

/**
 * The request types a tier serves beyond the core {@link Opcode}s. Found through
 * {@link java.util.ServiceLoader} ({@code META-INF/services/io.creel.common.protocol.TierOpcodeSource}),
 * as a tier's configuration keys are found through its {@link io.creel.common.conf.ConfKeySource}, so a
 * tier adds a request without editing {@code common}. An implementation needs a public no-argument
 * constructor.
 */
public interface TierOpcodeSource {
    /** This tier's own request types; each code in {@link TierOpcode#FIRST} to {@link TierOpcode#LAST}. */
    List<TierOpcode> opcodes();
}
