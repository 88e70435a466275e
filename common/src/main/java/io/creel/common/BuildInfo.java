package io.creel.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The release and the commit this build of Creel was made from, as the build wrote them into
 * {@code build.properties}: for {@code bin/creel --version}, the {@code creel_build_info} metric and
 * the status page. Every jar's manifest carries the same two values (Implementation-Version,
 * Implementation-Build).
 */
public final class BuildInfo {
    /** What a value reads when the build could not tell it (a source tree that is not a git checkout). */
    public static final String UNKNOWN = "unknown";

    private static final BuildInfo CURRENT = load();

    private final String version;
    private final String commit;

    private BuildInfo(String version, String commit) {
        this.version = version;
        this.commit = commit;
    }

    /** The build these classes belong to. */
    public static BuildInfo current() {
        return CURRENT;
    }

    /** The release, e.g. {@code 0.1.0} or {@code 0.1.0-SNAPSHOT}. */
    public String version() {
        return version;
    }

    /** The commit built, 12 hex digits, or {@link #UNKNOWN}. */
    public String commit() {
        return commit;
    }

    /** One line for people: {@code 0.1.0 (commit 0123456789ab)}. */
    @Override
    public String toString() {
        return version + " (commit " + commit + ")";
    }

    private static BuildInfo load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("build.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read io/creel/common/build.properties", e);
        }
        return new BuildInfo(filtered(p.getProperty("version")), filtered(p.getProperty("commit")));
    }

    /** A value the build did not fill in (classes compiled outside Maven) reads as unknown. */
    private static String filtered(String v) {
        return v == null || v.isBlank() || v.contains("${") ? UNKNOWN : v.trim();
    }
}
