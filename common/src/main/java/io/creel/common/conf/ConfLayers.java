package io.creel.common.conf;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * The configuration of a {@code bin/creel} command as four layers, later ones winning: the keys'
 * defaults, the site file ({@code creel-site.conf}), {@code CREEL_<KEY>} environment variables,
 * and {@code --conf KEY=VALUE}. Remembers where each value came from, for {@code bin/creel conf}.
 *
 * <p>A variable maps to a key by lower-casing and turning {@code _} into {@code .}:
 * {@code CREEL_STORAGE_DRAM_SIZE=2g} sets {@code creel.storage.dram.size}. The scripts' own
 * variables ({@link #SCRIPT_VARIABLES}) are not settings. Any other variable that falls in a section
 * keys use ({@code CREEL_STORAGE_...}, {@code CREEL_NAMENODE_...}) but names no key is a typo and
 * stops the command, naming the key it became; variables outside those sections (a test harness's
 * {@code CREEL_LAB_OUT}) are someone else's and left alone.
 */
public final class ConfLayers {
    /** Variables bin/creel, sbin/ and the test harnesses read themselves: never settings. */
    public static final Set<String> SCRIPT_VARIABLES = Set.of("CREEL_HOME", "CREEL_CONF_DIR", "CREEL_JAVA_OPTS",
            "CREEL_LOG_DIR", "CREEL_LOG_LEVEL", "CREEL_LOG_FILE", "CREEL_PID_DIR", "CREEL_CDS", "CREEL_INSTANCE",
            "CREEL_START_TIMEOUT", "CREEL_STOP_TIMEOUT", "CREEL_SSH_OPTS", "CREEL_RDMA_TESTS", "CREEL_RDMA_SUITES",
            "CREEL_RDMA_REQUIRED", "CREEL_RDMA_JAVA_OPTS");

    /** One key's effective value and where it came from. */
    public record Setting(String key, String value, String source) {
    }

    private final CreelConf conf;
    private final List<Setting> settings;

    private ConfLayers(CreelConf conf, List<Setting> settings) {
        this.conf = conf;
        this.settings = settings;
    }

    /**
     * Loads the layers and validates the result (every unknown key and bad value at once, saying
     * which layers they may be in).
     *
     * @param siteFile    the site file, or null for none
     * @param environment the process's environment ({@code System.getenv()})
     * @param commandLine the {@code --conf} settings, in order
     */
    public static ConfLayers load(Path siteFile, Map<String, String> environment, Map<String, String> commandLine) {
        Map<String, String> merged = new LinkedHashMap<>();
        Map<String, String> source = new TreeMap<>();
        if (siteFile != null) {
            readSiteFile(siteFile).forEach((k, v) -> {
                merged.put(k, v);
                source.put(k, "site file " + siteFile);
            });
        }
        Map<String, String> fromEnv = fromEnvironment(environment);
        fromEnv.forEach((k, v) -> {
            merged.put(k, v);
            source.put(k, "environment " + variableOf(k));
        });
        commandLine.forEach((k, v) -> {
            merged.put(k, v);
            source.put(k, "--conf");
        });
        ConfKeys.renamed().forEach((old, now) -> {
            String from = source.remove(old);
            if (from != null && !merged.containsKey(now.name())) {
                source.put(now.name(), from + ", as the deprecated " + old);
            }
        });
        Map<String, String> current = ConfKeys.currentNames(merged);
        CreelConf conf;
        try {
            conf = CreelConf.of(current);
        } catch (CreelException e) {
            List<String> layers = new ArrayList<>();
            if (siteFile != null) {
                layers.add(siteFile.toString());
            }
            if (!fromEnv.isEmpty()) {
                layers.add("the CREEL_* environment variables");
            }
            if (!commandLine.isEmpty()) {
                layers.add("the settings given on the command line");
            }
            throw new CreelException(ErrorCode.CONFIGURATION, e.getMessage()
                    + (layers.isEmpty() ? "" : " (in " + String.join(" or ", layers) + ")"));
        }
        List<Setting> all = new ArrayList<>();
        new TreeMap<>(ConfKeys.all()).forEach((name, key) -> all.add(current.containsKey(name)
                ? new Setting(name, current.get(name), source.get(name))
                : new Setting(name, key.defaultText(), "default")));
        return new ConfLayers(conf, List.copyOf(all));
    }

    /** The validated configuration. */
    public CreelConf conf() {
        return conf;
    }

    /** Every known key, sorted, with its effective value (as text) and where it came from. */
    public List<Setting> settings() {
        return settings;
    }

    /** The environment variable that sets {@code key}: {@code creel.http.port} is {@code CREEL_HTTP_PORT}. */
    public static String variableOf(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_');
    }

    /** The settings {@code environment} makes (key to value); fails on a variable that is a typo of a key. */
    public static Map<String, String> fromEnvironment(Map<String, String> environment) {
        Set<String> sections = ConfKeys.all().keySet().stream().map(ConfLayers::section).collect(Collectors.toSet());
        Map<String, String> out = new TreeMap<>();
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> e : new TreeMap<>(environment).entrySet()) {
            String name = e.getKey();
            if (!name.matches("CREEL_[A-Z0-9_]+") || SCRIPT_VARIABLES.contains(name)) {
                continue;
            }
            String key = name.toLowerCase(Locale.ROOT).replace('_', '.');
            if (ConfKeys.all().containsKey(key) || ConfKeys.renamed().containsKey(key)) {
                out.put(key, e.getValue()); // a renamed key's old name is taken, and warned about, as everywhere
            } else if (sections.contains(section(key))) {
                problems.add("environment variable " + name + " sets '" + key + "', which is no key");
            }
        }
        if (!problems.isEmpty()) {
            throw new CreelException(ErrorCode.CONFIGURATION, String.join("; ", problems)
                    + " (bin/creel conf lists the keys)");
        }
        return out;
    }

    /** "creel.storage" of "creel.storage.dram.size". */
    private static String section(String key) {
        int first = key.indexOf('.');
        int second = first < 0 ? -1 : key.indexOf('.', first + 1);
        return second < 0 ? key : key.substring(0, second);
    }

    private static Map<String, String> readSiteFile(Path file) {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot read " + file + ": " + e.getMessage(), e);
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (String name : new TreeMap<>(Map.copyOf(p)).keySet().stream().map(String::valueOf).toList()) {
            out.put(name, p.getProperty(name));
        }
        return out;
    }
}
