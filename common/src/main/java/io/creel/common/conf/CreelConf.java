package io.creel.common.conf;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * An immutable, validated configuration: every known key has a parsed value (its default unless
 * set). Building one reports every unknown key and every bad value at once, so a typo is caught at
 * start rather than silently ignored.
 */
public final class CreelConf {
    /** Environment variable naming the configuration directory that holds {@code creel-site.conf}. */
    public static final String CONF_DIR_ENV = "CREEL_CONF_DIR";
    /** File name of the site configuration. */
    public static final String SITE_FILE = "creel-site.conf";

    private final Map<String, String> explicit;
    private final Map<ConfKey<?>, Object> values;

    private CreelConf(Map<String, String> explicit, Map<ConfKey<?>, Object> values) {
        this.explicit = Collections.unmodifiableMap(explicit);
        this.values = values;
    }

    /** All defaults. */
    public static CreelConf defaults() {
        return of(Map.of());
    }

    /**
     * Validates {@code settings} (key to text) over the defaults. A renamed key's old name still
     * works, with a warning ({@link ConfKeys#renamed()}).
     */
    public static CreelConf of(Map<String, String> given) {
        Map<String, String> settings = ConfKeys.currentNames(given);
        List<String> problems = new ArrayList<>();
        Map<ConfKey<?>, Object> values = new HashMap<>();
        Map<String, String> explicit = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : settings.entrySet()) {
            if (!ConfKeys.all().containsKey(e.getKey())) {
                problems.add("unknown key '" + e.getKey() + "'" + suggestion(e.getKey()));
            } else {
                explicit.put(e.getKey(), e.getValue());
            }
        }
        for (ConfKey<?> key : ConfKeys.all().values()) {
            String text = explicit.getOrDefault(key.name(), key.defaultText());
            try {
                values.put(key, key.parse(text));
            } catch (IllegalArgumentException ex) {
                problems.add(key.name() + ": " + ex.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new CreelException(ErrorCode.CONFIGURATION,
                    "invalid configuration: " + String.join("; ", problems));
        }
        return new CreelConf(explicit, values);
    }

    /** Reads a properties-style file ({@code key = value}, {@code #} comments) and applies {@code overrides} on top. */
    public static CreelConf load(Path file, Map<String, String> overrides) {
        Map<String, String> settings = new LinkedHashMap<>();
        if (file != null) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
            } catch (IOException e) {
                throw new CreelException(ErrorCode.CONFIGURATION, "cannot read " + file + ": " + e.getMessage(), e);
            }
            for (String name : p.stringPropertyNames()) {
                settings.put(name, p.getProperty(name));
            }
        }
        settings.putAll(overrides);
        try {
            return of(settings);
        } catch (CreelException e) {
            String where = file == null ? (overrides.isEmpty() ? "" : " (in the settings given on the command line)")
                    : overrides.isEmpty() ? " (in " + file + ")"
                    : " (in " + file + " or the settings given on the command line)";
            throw new CreelException(ErrorCode.CONFIGURATION, e.getMessage() + where);
        }
    }

    /**
     * The site file to use: {@code $CREEL_CONF_DIR/creel-site.conf} if the variable is set (the file
     * must then exist), else {@code defaultDir/creel-site.conf} if that exists, else none.
     */
    public static Path locateSiteFile(Path defaultDir) {
        String dir = System.getenv(CONF_DIR_ENV);
        if (dir != null && !dir.isBlank()) {
            Path f = Path.of(dir, SITE_FILE);
            if (!Files.isRegularFile(f)) {
                throw new CreelException(ErrorCode.CONFIGURATION, CONF_DIR_ENV + " is set but " + f + " does not exist");
            }
            return f;
        }
        if (defaultDir != null) {
            Path f = defaultDir.resolve(SITE_FILE);
            if (Files.isRegularFile(f)) {
                return f;
            }
        }
        return null;
    }

    /** A copy with more settings applied (validated like the original). */
    public CreelConf with(Map<String, String> more) {
        Map<String, String> merged = new LinkedHashMap<>(explicit);
        merged.putAll(ConfKeys.currentNames(more)); // a later setting wins over one under the other name
        return of(merged);
    }

    /** A copy with one setting applied. */
    public CreelConf with(ConfKey<?> key, String value) {
        return with(Map.of(key.name(), value));
    }

    /**
     * The value of {@code key}. A key declared by a module whose {@link ConfKeySource} is not
     * registered is a packaging bug, reported as such rather than as a null.
     */
    @SuppressWarnings("unchecked")
    public <T> T get(ConfKey<T> key) {
        Object v = values.get(key);
        if (v == null) {
            throw new IllegalStateException("configuration key " + key.name() + " is not registered: the "
                    + "META-INF/services/" + ConfKeySource.class.getName() + " entry of its module is missing");
        }
        return (T) v;
    }

    /** The keys set explicitly (not defaults), as text. */
    public Map<String, String> explicitSettings() {
        return explicit;
    }

    /** Largest frame a peer may send: the configured one, else a block plus headroom for headers. */
    public int maxFrameSize() {
        long configured = get(ConfKeys.NET_MAX_FRAME);
        long size = configured > 0 ? configured : get(ConfKeys.BLOCK_SIZE) + (64 << 10);
        return (int) Math.min(size, Integer.MAX_VALUE - 8);
    }

    private static String suggestion(String unknown) {
        String best = null;
        int bestDist = Integer.MAX_VALUE;
        for (String k : ConfKeys.all().keySet()) {
            int d = distance(unknown, k);
            if (d < bestDist) {
                bestDist = d;
                best = k;
            }
        }
        return best != null && bestDist <= Math.max(3, unknown.length() / 4) ? " (did you mean '" + best + "'?)" : "";
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
