package io.creel.ycsb;

import io.creel.common.conf.ConfKey;
import io.creel.common.conf.ConfKeySource;
import io.creel.common.conf.ConfValues;
import io.creel.common.namespace.PathName;
import java.util.List;

/**
 * The YCSB binding's own keys, set like every other {@code creel.*} key: in
 * {@code creel-site.conf} or with YCSB's {@code -p key=value}. Registered as a
 * {@link ConfKeySource}; {@code conf/creel-site.conf} documents each key.
 */
public final class YcsbKeys implements ConfKeySource {
    public static final ConfKey<String> ROOT = ConfKey.of("creel.ycsb.root", "/", YcsbKeys::parseDirectory,
            "Directory of the YCSB tables: YCSB table T is the Creel Table <root>/T (the directory is made if missing).");
    public static final ConfKey<Boolean> TABLE_ENUMERABLE = ConfKey.of("creel.ycsb.table.enumerable", "false",
            ConfValues::parseBoolean,
            "Whether a Table the binding creates lists its keys (false: no directory records, faster inserts).");
    public static final ConfKey<String> TABLE_ORDERED = ConfKey.of("creel.ycsb.table.ordered", "auto",
            YcsbKeys::parseOrdered, "Whether a Table the binding creates keeps its keys in order, so YCSB's scan works: "
                    + "true, false, or auto (ordered when the workload scans: scanproportion > 0, as in workload E).");
    public static final ConfKey<String> STORAGE_CLASS = ConfKey.of("creel.ycsb.storage.class", "", String::trim,
            "Storage class of the Tables the binding creates (dram, disk); empty inherits (the cluster's order).");
    public static final ConfKey<java.time.Duration> TTL = ConfKey.of("creel.ycsb.ttl", "1h", ConfValues::parseDuration,
            "The Tables the binding creates are scratch data: removed this long after the YCSB process that created "
                    + "them stopped (long enough for a run phase after the load phase); 0 keeps them.");

    /** For {@link java.util.ServiceLoader}; the keys are the static fields. */
    public YcsbKeys() {
    }

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(ROOT, TABLE_ENUMERABLE, TABLE_ORDERED, STORAGE_CLASS, TTL);
    }

    private static String parseOrdered(String text) {
        String v = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (!v.equals("auto") && !v.equals("true") && !v.equals("false")) {
            throw new IllegalArgumentException("true, false or auto, not '" + text + "'");
        }
        return v;
    }

    private static String parseDirectory(String text) {
        try {
            return PathName.parse(text).toString();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a Creel path: " + e.getMessage());
        }
    }
}
