package io.creel.common.protocol;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Every request type a process knows, by wire code: the core {@link Opcode}s, and the
 * {@link TierOpcode}s registered by the tiers on the class path. The frame decoder
 * ({@code RequestDispatch}) and the servers' refusals look codes up here. A code or a name claimed
 * twice is refused, with an error naming both owners. Thread-safe; lookups do not lock.
 */
public final class OpcodeRegistry {
    /** The process's registry, built from the class path's {@link TierOpcodeSource}s on first use. */
    private static volatile OpcodeRegistry installed;

    private volatile RequestType[] byCode;
    private final Map<String, RequestType> byName = new HashMap<>();

    /** A registry of the core opcodes only; {@link #register} adds a tier's. */
    public OpcodeRegistry() {
        RequestType[] table = new RequestType[256];
        for (Opcode o : Opcode.values()) {
            table[o.code()] = o;
            byName.put(o.name(), o);
        }
        byCode = table;
    }

    /**
     * The registry of this process: the core opcodes and those of every {@link TierOpcodeSource}
     * {@link ServiceLoader} finds with the loader that loaded Creel. Built once, on the first call;
     * servers call it as they start, so a collision stops them there.
     *
     * @throws CreelException CONFIGURATION when two sources claim one code or one name (built again
     *                        on the next call, which fails the same way)
     */
    public static OpcodeRegistry installed() {
        OpcodeRegistry r = installed;
        if (r == null) {
            synchronized (OpcodeRegistry.class) {
                r = installed;
                if (r == null) {
                    r = discovered(OpcodeRegistry.class.getClassLoader());
                    installed = r;
                }
            }
        }
        return r;
    }

    /** A registry of the core opcodes and those the {@link TierOpcodeSource}s {@code loader} finds declare. */
    public static OpcodeRegistry discovered(ClassLoader loader) {
        OpcodeRegistry r = new OpcodeRegistry();
        for (TierOpcodeSource source : ServiceLoader.load(TierOpcodeSource.class, loader)) {
            for (TierOpcode op : source.opcodes()) {
                r.register(op);
            }
        }
        return r;
    }

    /**
     * Adds a tier's request type. Registering an equal one again does nothing.
     *
     * @throws CreelException CONFIGURATION when its code or its name is already another's, naming both
     */
    public synchronized void register(TierOpcode op) {
        RequestType before = byCode[op.code()];
        if (op.equals(before)) {
            return;
        }
        if (before != null) {
            throw new CreelException(ErrorCode.CONFIGURATION, "opcode " + op.code() + " is claimed twice: "
                    + describe(before) + " and " + describe(op) + "; one of the tiers must take another code");
        }
        RequestType sameName = byName.get(op.name());
        if (sameName != null) {
            throw new CreelException(ErrorCode.CONFIGURATION, "opcode name " + op.name() + " is claimed twice: "
                    + describe(sameName) + " and " + describe(op) + "; one of the tiers must take another name");
        }
        byName.put(op.name(), op);
        RequestType[] next = byCode.clone(); // readers see the old table or the new one, whole
        next[op.code()] = op;
        byCode = next;
    }

    private static String describe(RequestType op) {
        return op.name() + " (code " + op.code() + ", of " + (op instanceof TierOpcode t ? t.owner() : "core") + ")";
    }

    /** The request type of a wire code, or {@code null} when no core opcode or registered tier has it. */
    public RequestType ofCode(int code) {
        RequestType[] table = byCode;
        return code >= 0 && code < table.length ? table[code] : null;
    }

    /** Every request type known here, by code. */
    public synchronized List<RequestType> all() {
        List<RequestType> out = new ArrayList<>();
        for (RequestType t : byCode) {
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }
}
