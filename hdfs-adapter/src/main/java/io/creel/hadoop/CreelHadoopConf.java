package io.creel.hadoop;

import io.creel.client.integration.FrameworkSettings;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import java.net.URI;
import java.util.List;
import org.apache.hadoop.conf.Configuration;

/**
 * How a Hadoop {@link Configuration} and a {@code creel://} URI become a {@link CreelConf}: the
 * {@code fs.creel.*} keys are read as every integration reads its framework's keys
 * ({@link FrameworkSettings}), then the URI names the namenode. Lowest precedence first:
 * <ol>
 *   <li>the site file: {@code $CREEL_CONF_DIR/creel-site.conf}, else {@code <fs.creel.site.dir>/creel-site.conf}
 *       if that key is set and the file exists ({@link CreelConf#locateSiteFile});</li>
 *   <li>every Hadoop key {@code fs.creel.conf.<creel key>}, passed through as {@code <creel key>};</li>
 *   <li>{@link #NAMENODE_ADDRESS} ({@code fs.creel.namenode.address});</li>
 *   <li>the URI's authority: {@code creel://host:port/} names the namenode to use. When it is the
 *       first of the configured addresses, the whole configured list (all partitions) is kept.</li>
 * </ol>
 */
public final class CreelHadoopConf {
    /** The prefix of every Creel key in a Hadoop configuration. */
    public static final String PREFIX = "fs.creel.";
    /** Namenode address(es), comma-separated {@code creel://host:port}, maps to {@code creel.namenode.address}. */
    public static final String NAMENODE_ADDRESS = PREFIX + FrameworkSettings.NAMENODE_ADDRESS;
    /** Storage class of the files this file system creates ("" = inherit from the parent / cluster order). */
    public static final String STORAGE_CLASS = PREFIX + FrameworkSettings.STORAGE_CLASS;
    /** Prefix of keys passed through to Creel: {@code fs.creel.conf.creel.block.size} sets {@code creel.block.size}. */
    public static final String PASS_THROUGH_PREFIX = PREFIX + FrameworkSettings.PASS_THROUGH;
    /** Directory holding {@code creel-site.conf}, used when {@code CREEL_CONF_DIR} is not set. */
    public static final String SITE_DIR = PREFIX + FrameworkSettings.SITE_DIR;

    private CreelHadoopConf() {
    }

    /** The {@code fs.creel.*} keys of {@code conf}. */
    public static FrameworkSettings settings(Configuration conf) {
        return FrameworkSettings.of(PREFIX, conf.getPropsWithPrefix(PREFIX));
    }

    /** The Creel configuration for a file system at {@code uri}. */
    public static CreelConf creelConf(URI uri, Configuration conf) {
        CreelConf base = settings(conf).creelConf();
        String authority = uri.getAuthority();
        if (authority == null || authority.isEmpty()) {
            return base;
        }
        HostPort named;
        try {
            named = HostPort.parse(HostPort.SCHEME + "://" + authority);
        } catch (IllegalArgumentException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, uri + ": " + e.getMessage());
        }
        List<HostPort> configured = base.get(ConfKeys.NAMENODE_ADDRESS);
        if (configured.get(0).equals(named)) {
            return base;
        }
        return base.with(ConfKeys.NAMENODE_ADDRESS, named.toUri());
    }
}
