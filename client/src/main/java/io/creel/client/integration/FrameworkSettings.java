package io.creel.client.integration;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A framework's settings for Creel, read the same way by every integration. A framework keeps them
 * under its own prefix ({@code fs.creel.} in a Hadoop {@code Configuration}, {@code spark.creel.}
 * in a {@code SparkConf}), and under it the names are the same everywhere:
 * <ul>
 *   <li>{@value #NAMENODE_ADDRESS}: the namenode address(es), {@code creel://host:port[,...]};</li>
 *   <li>{@value #PASS_THROUGH}{@code <creel key>}: any Creel key
 *       ({@code spark.creel.conf.creel.block.size} sets {@code creel.block.size});</li>
 *   <li>{@value #SITE_DIR}: the directory of {@code creel-site.conf}, when {@code CREEL_CONF_DIR} is not set;</li>
 *   <li>{@code [<scope>.]}{@value #STORAGE_CLASS}: the storage class of what the integration
 *       creates ({@code fs.creel.storage.class}, {@code spark.creel.shuffle.storage.class}).</li>
 * </ul>
 * An integration's own keys are spelled the same way: lower case, words between dots. A renamed key
 * keeps working under its old spelling, with a warning ({@link #get(String, String, String...)}).
 */
public final class FrameworkSettings {
    /** Namenode address(es); becomes {@code creel.namenode.address}. */
    public static final String NAMENODE_ADDRESS = "namenode.address";
    /** Prefix of the keys passed through to Creel as they are. */
    public static final String PASS_THROUGH = "conf.";
    /** Directory holding {@code creel-site.conf}, used when {@code CREEL_CONF_DIR} is not set. */
    public static final String SITE_DIR = "site.dir";
    /** Storage class of what an integration creates ("" inherits: the cluster's order). */
    public static final String STORAGE_CLASS = "storage.class";
    /** Copies of each block of what an integration creates (under a scope: {@code shuffle.replication}). */
    public static final String REPLICATION = "replication";

    private static final Logger LOG = LoggerFactory.getLogger(FrameworkSettings.class);
    /** Deprecated spellings already warned about: once per process is enough. */
    private static final Set<String> WARNED = ConcurrentHashMap.newKeySet();

    private final String prefix;
    private final Map<String, String> settings;

    private FrameworkSettings(String prefix, Map<String, String> settings) {
        this.prefix = prefix;
        this.settings = Map.copyOf(settings);
    }

    /**
     * @param prefix   the framework's prefix for Creel, with its trailing dot ("spark.creel.")
     * @param settings the framework's settings under {@code prefix}, named without it
     *                 ({@code SparkConf.getAllWithPrefix}, Hadoop's {@code getPropsWithPrefix})
     */
    public static FrameworkSettings of(String prefix, Map<String, String> settings) {
        return new FrameworkSettings(prefix, settings);
    }

    /** The full name of {@code key}, for messages ("spark.creel.shuffle.root"). */
    public String name(String key) {
        return prefix + key;
    }

    /**
     * The Creel configuration these settings give, lowest precedence first: the site file
     * ({@code $CREEL_CONF_DIR/creel-site.conf}, else {@value #SITE_DIR}{@code /creel-site.conf} if it
     * exists), the {@value #PASS_THROUGH} keys, then {@value #NAMENODE_ADDRESS}.
     *
     * @throws io.creel.common.error.CreelException CONFIGURATION naming a bad or unknown key
     */
    public CreelConf creelConf() {
        Map<String, String> overrides = new LinkedHashMap<>();
        settings.forEach((k, v) -> {
            if (k.startsWith(PASS_THROUGH)) {
                overrides.put(k.substring(PASS_THROUGH.length()), v);
            }
        });
        String nn = get(NAMENODE_ADDRESS, "");
        if (!nn.isEmpty()) {
            overrides.put(ConfKeys.NAMENODE_ADDRESS.name(), nn);
        }
        return load(get(SITE_DIR, ""), overrides);
    }

    /**
     * The site file ({@code $CREEL_CONF_DIR}, else {@code siteDir}; none when neither has one) with
     * {@code overrides} on top: for a framework whose settings are Creel keys themselves (YCSB's
     * {@code -p creel.*}).
     *
     * @param siteDir the directory to look for {@code creel-site.conf} in; null or blank for none
     */
    public static CreelConf load(String siteDir, Map<String, String> overrides) {
        Path dir = siteDir == null || siteDir.isBlank() ? null : Path.of(siteDir.trim());
        return CreelConf.load(CreelConf.locateSiteFile(dir), overrides);
    }

    /**
     * The value of {@code key} (trimmed). When it is not set, the first of its {@code deprecated}
     * spellings that is set stands in for it, with a warning naming the new spelling (once per
     * process); when none is, {@code fallback}.
     */
    public String get(String key, String fallback, String... deprecated) {
        return setting(key, fallback, deprecated).value();
    }

    /**
     * A setting's value, as {@link #get(String, String, String...)} finds it, and the name to give
     * in a message about it.
     *
     * @param name  the key's full name; when a deprecated spelling gave the value, that spelling's
     *              with the key's after it
     * @param value the value, trimmed; the fallback when nothing was set
     */
    public record Setting(String name, String value) {
    }

    /** The setting {@code key}, or one of its {@code deprecated} spellings, gives; see {@link #get}. */
    public Setting setting(String key, String fallback, String... deprecated) {
        String v = settings.get(key);
        String used = v == null ? null : key;
        for (String old : deprecated) {
            String o = settings.get(old);
            if (o == null) {
                continue;
            }
            if (used != null) {
                warnOnce("{} is set but ignored: {} is set too", name(old), name(used));
            } else {
                warnOnce("{} is deprecated: set {} instead", name(old), name(key));
                v = o;
                used = old;
            }
        }
        String shown = used == null || used.equals(key) ? name(key)
                : name(used) + " (the deprecated spelling of " + name(key) + ")";
        return new Setting(shown, v == null ? fallback : v.trim());
    }

    /**
     * The storage class {@code scope}{@value #STORAGE_CLASS} names ("" inherits); {@code scope} is
     * empty or ends with a dot ("shuffle.").
     */
    public String storageClass(String scope, String... deprecated) {
        return get(scope + STORAGE_CLASS, "", deprecated);
    }

    /**
     * The replication factor {@code scope}{@value #REPLICATION} names: 1 to 8 copies, or 0 (the
     * default) to leave it to {@code creel.client.replication} and the namenode. A bad value is a
     * CONFIGURATION error naming the key.
     */
    public int replication(String scope) {
        Setting s = setting(scope + REPLICATION, "0");
        try {
            int n = Integer.parseInt(s.value());
            if (n < 0 || n > io.creel.common.protocol.BlockLocation.MAX_COPIES) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new io.creel.common.error.CreelException(io.creel.common.error.ErrorCode.CONFIGURATION, s.name()
                    + " = '" + s.value() + "': copies of each block, 0 (inherit) to "
                    + io.creel.common.protocol.BlockLocation.MAX_COPIES);
        }
    }

    /** Logs {@code message} about the deprecated spelling {@code old} unless this process did already. */
    private static void warnOnce(String message, String old, String other) {
        if (WARNED.add(old)) {
            LOG.warn(message, old, other);
        }
    }
}
