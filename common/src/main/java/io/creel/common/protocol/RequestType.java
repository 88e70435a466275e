package io.creel.common.protocol;

/**
 * What a request asks for, as the one-byte code its frame carries: one of the core {@link Opcode}s,
 * which every Creel process knows, or a {@link TierOpcode} that a tier declares for the requests only
 * it serves. Frames, dispatch, replies and probes treat both alike; {@link OpcodeRegistry#ofCode}
 * reads one off the wire.
 */
public sealed interface RequestType permits Opcode, TierOpcode {
    /** The wire value (1 to 255). */
    int code();

    /** Upper-case name, for messages and metrics: "LOOKUP", "BLOCK_CLAIM". */
    String name();
}
