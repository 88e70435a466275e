package io.creel.namenode.allocation;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.protocol.BlockLocation;
import java.util.Map;
import java.util.TreeMap;

/**
 * The copies each block of a storage class gets when neither its node nor an ancestor says
 * ({@code creel.namenode.replication} and {@code creel.namenode.replication.classes}).
 */
public final class ReplicationFactors {
    /** One copy of everything: the behaviour of a cluster that does not replicate. */
    public static final ReplicationFactors NONE = new ReplicationFactors(1, Map.of());

    private final int fallback;
    private final Map<String, Integer> byClass;

    private ReplicationFactors(int fallback, Map<String, Integer> byClass) {
        this.fallback = fallback;
        this.byClass = Map.copyOf(byClass);
    }

    /**
     * Factors from the keys' values.
     *
     * @param fallback copies for a class not in {@code classes}
     * @param classes  "class=copies" pairs separated by commas ("" for none), e.g. "dram=2,disk=1"
     */
    public static ReplicationFactors parse(int fallback, String classes) {
        check(fallback, "creel.namenode.replication");
        Map<String, Integer> byClass = new TreeMap<>();
        for (String pair : classes.split(",")) {
            if (pair.isBlank()) {
                continue;
            }
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new CreelException(ErrorCode.CONFIGURATION, "creel.namenode.replication.classes: '" + pair.trim()
                        + "' is not class=copies (e.g. dram=2,disk=1)");
            }
            int copies;
            try {
                copies = Integer.parseInt(pair.substring(eq + 1).trim());
            } catch (NumberFormatException e) {
                throw new CreelException(ErrorCode.CONFIGURATION, "creel.namenode.replication.classes: '" + pair.trim()
                        + "' does not end in a number of copies");
            }
            check(copies, "creel.namenode.replication.classes (" + pair.trim() + ")");
            byClass.put(pair.substring(0, eq).trim(), copies);
        }
        return new ReplicationFactors(fallback, byClass);
    }

    private static void check(int copies, String key) {
        if (copies < 1 || copies > BlockLocation.MAX_COPIES) {
            throw new CreelException(ErrorCode.CONFIGURATION, key + ": " + copies + " copies; 1 to "
                    + BlockLocation.MAX_COPIES);
        }
    }

    /** The copies of a block of {@code storageClass}. */
    public int of(String storageClass) {
        return byClass.getOrDefault(storageClass, fallback);
    }

    /** The classes named explicitly (for checking them against the configured classes). */
    public java.util.Set<String> namedClasses() {
        return byClass.keySet();
    }
}
