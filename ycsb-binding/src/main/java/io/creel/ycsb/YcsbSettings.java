package io.creel.ycsb;

import io.creel.client.CreateOptions;
import io.creel.client.integration.FrameworkSettings;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * How YCSB's properties become the binding's settings. YCSB's {@code creel.*} properties are Creel
 * keys themselves, so there is no prefix to map: the site file and the properties are loaded as every
 * integration loads them ({@link FrameworkSettings#load}). Precedence, lowest first: the defaults,
 * {@code creel-site.conf} ({@code $CREEL_CONF_DIR}, else the directory in the system property
 * {@value #CONF_DIR_PROPERTY} that {@code bin/creel} sets), then every YCSB property whose name
 * starts with {@code creel.} (from a workload file or {@code -p}). Every {@code creel.*} property
 * must be a known key: a typo stops the binding at init with the key named, as it would stop a
 * daemon.
 *
 * @param conf         the client configuration (namenode address, timeouts, and the binding's keys)
 * @param root         the directory holding the YCSB tables
 * @param tableOptions how the binding creates a missing Table (its storage class, whether it is
 *                     enumerable and ordered, its time to live: YCSB's tables are scratch data)
 */
public record YcsbSettings(CreelConf conf, PathName root, CreateOptions tableOptions) {
    /** System property naming the directory of {@code creel-site.conf} (set by {@code bin/creel}). */
    public static final String CONF_DIR_PROPERTY = "creel.conf.dir";
    /** YCSB's CoreWorkload property: the share of operations that are scans (0 unless the workload sets it). */
    static final String SCAN_PROPORTION = "scanproportion";
    /** Prefix of the YCSB properties handed to Creel. */
    public static final String PREFIX = "creel.";

    /** Reads the settings; a bad or unknown key is a CONFIGURATION error naming it. */
    public static YcsbSettings from(Properties props) {
        Map<String, String> overrides = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith(PREFIX)) {
                overrides.put(name, props.getProperty(name).trim());
            }
        }
        CreelConf conf = FrameworkSettings.load(System.getProperty(CONF_DIR_PROPERTY), overrides);
        String storageClass = conf.get(YcsbKeys.STORAGE_CLASS);
        List<String> classes = conf.get(ConfKeys.STORAGE_CLASSES);
        if (!storageClass.isEmpty() && !classes.contains(storageClass)) {
            throw new CreelException(ErrorCode.CONFIGURATION, YcsbKeys.STORAGE_CLASS.name() + " = '" + storageClass
                    + "' is not one of the cluster's storage classes " + classes + " (" + ConfKeys.STORAGE_CLASSES.name()
                    + ")");
        }
        java.time.Duration ttl = conf.get(YcsbKeys.TTL);
        CreateOptions options = CreateOptions.defaults().withStorageClass(storageClass)
                .withEnumerable(conf.get(YcsbKeys.TABLE_ENUMERABLE)).withOrdered(ordered(conf, props))
                .withExpiry(ttl.isZero() ? io.creel.common.protocol.Expiry.NONE
                        : io.creel.common.protocol.Expiry.timeToLive(ttl));
        return new YcsbSettings(conf, PathName.parse(conf.get(YcsbKeys.ROOT)), options);
    }

    /**
     * Whether the binding creates its Tables ordered: as {@link YcsbKeys#TABLE_ORDERED} says, or with
     * {@code auto} when the workload scans ({@value #SCAN_PROPORTION} above 0). The load phase of a
     * scanning workload (e.g. {@code ycsb load e}) reads the same workload file, so the Table it
     * makes is the one the run phase can scan.
     */
    static boolean ordered(CreelConf conf, Properties props) {
        String setting = conf.get(YcsbKeys.TABLE_ORDERED);
        if (!setting.equals("auto")) {
            return Boolean.parseBoolean(setting);
        }
        String scans = props.getProperty(SCAN_PROPORTION, "0").trim();
        try {
            return Double.parseDouble(scans) > 0;
        } catch (NumberFormatException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, SCAN_PROPORTION + " = '" + scans + "' is not a number ("
                    + YcsbKeys.TABLE_ORDERED.name() + " = auto reads it)");
        }
    }
}
