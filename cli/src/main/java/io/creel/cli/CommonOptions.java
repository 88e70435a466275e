package io.creel.cli;

import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.ConfLayers;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * Options every command of {@code bin/creel} takes (a picocli mixin): configuration overrides and
 * --debug. The configuration ({@link ConfLayers}) comes from the keys' defaults, the site file
 * ({@code creel-site.conf} in the directory named by the system property {@code creel.conf.dir},
 * else {@code $CREEL_HOME/conf}, or {@code $CREEL_CONF_DIR}), {@code CREEL_<KEY>} environment
 * variables, the {@code --conf} overrides, and last a namenode address given in a
 * {@code creel://host:port/...} path. This is the one place bin/creel's commands load it.
 */
public final class CommonOptions {
    /** System property naming the configuration directory (set by bin/creel). */
    public static final String CONF_DIR_PROPERTY = "creel.conf.dir";

    @Option(names = "--conf", paramLabel = "KEY=VALUE", description = "Override a configuration key (repeatable).")
    List<String> overrides = new ArrayList<>();

    @Option(names = "--debug", description = "Print stack traces of errors.")
    boolean debug;

    public boolean debug() {
        return debug;
    }

    /** The configuration: defaults, site file, environment, then --conf overrides. */
    public CreelConf loadConf() {
        return layers().conf();
    }

    /** The configuration's layers, with where each value came from ({@code bin/creel conf}). */
    public ConfLayers layers() {
        Map<String, String> settings = new LinkedHashMap<>();
        for (String o : overrides) {
            int eq = o.indexOf('=');
            if (eq <= 0) {
                throw new CreelException(ErrorCode.CONFIGURATION, "--conf needs KEY=VALUE, got '" + o + "'");
            }
            settings.put(o.substring(0, eq).trim(), o.substring(eq + 1).trim());
        }
        return ConfLayers.load(CreelConf.locateSiteFile(confDir()), System.getenv(), settings);
    }

    /**
     * The configuration for a command on {@code paths}: if they name a namenode
     * ({@code creel://host:port/...}) it replaces {@code creel.namenode.address}.
     */
    public CreelConf loadConf(CreelPath... paths) {
        CreelConf conf = loadConf();
        HostPort named = null;
        for (CreelPath p : paths) {
            if (p != null && p.namenode() != null) {
                if (named != null && !named.equals(p.namenode())) {
                    throw new CreelException(ErrorCode.INVALID_ARGUMENT, "paths name different namenodes: "
                            + named.toUri() + " and " + p.namenode().toUri());
                }
                named = p.namenode();
            }
        }
        return named == null ? conf : conf.with(ConfKeys.NAMENODE_ADDRESS, named.toUri());
    }

    /** A client for a command on {@code paths}. */
    public CreelClient connect(CreelPath... paths) {
        return CreelClient.connect(loadConf(paths));
    }

    private static Path confDir() {
        String prop = System.getProperty(CONF_DIR_PROPERTY);
        if (prop != null && !prop.isBlank()) {
            return Path.of(prop);
        }
        String home = System.getenv("CREEL_HOME");
        if (home != null && !home.isBlank()) {
            return Path.of(home, "conf");
        }
        return null;
    }
}
