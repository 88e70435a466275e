package io.creel.hadoop;

import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.net.HostPort;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * How a Hadoop {@link Configuration} and a {@code creel://} URI become a {@link CreelConf}, lowest
 * precedence first:
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
    /** Namenode address(es), comma-separated {@code creel://host:port}, maps to {@code creel.namenode.address}. */
    public static final String NAMENODE_ADDRESS = "fs.creel.namenode.address";
    /** Storage class of the files this file system creates ("" = inherit from the parent / cluster order). */
    public static final String STORAGE_CLASS = "fs.creel.storage.class";
    /** Prefix of keys passed through to Creel: {@code fs.creel.conf.creel.block.size} sets {@code creel.block.size}. */
    public static final String PASS_THROUGH_PREFIX = "fs.creel.conf.";
    /** Directory holding {@code creel-site.conf}, used when {@code CREEL_CONF_DIR} is not set. */
    public static final String SITE_DIR = "fs.creel.site.dir";

    private CreelHadoopConf() {
    }

    /** The Creel configuration for a file system at {@code uri}. */
    public static CreelConf creelConf(URI uri, Configuration conf) {
        Map<String, String> overrides = new LinkedHashMap<>(conf.getPropsWithPrefix(PASS_THROUGH_PREFIX));
        String nn = conf.getTrimmed(NAMENODE_ADDRESS);
        if (nn != null && !nn.isEmpty()) {
            overrides.put(ConfKeys.NAMENODE_ADDRESS.name(), nn);
        }
        String siteDir = conf.getTrimmed(SITE_DIR);
        Path site = CreelConf.locateSiteFile(siteDir == null || siteDir.isEmpty() ? null : Path.of(siteDir));
        CreelConf base = CreelConf.load(site, overrides);
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
