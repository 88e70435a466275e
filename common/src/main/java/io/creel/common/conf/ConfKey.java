package io.creel.common.conf;

import java.util.Objects;
import java.util.function.Function;

/**
 * One configuration key: its name, its default (as text, exactly as documented in
 * {@code conf/creel-site.conf}), how to parse it, and a one-line description.
 *
 * @param <T> the parsed value type
 */
public final class ConfKey<T> {
    private final String name;
    private final String defaultText;
    private final Function<String, T> parser;
    private final String description;

    ConfKey(String name, String defaultText, Function<String, T> parser, String description) {
        this.name = Objects.requireNonNull(name);
        this.defaultText = Objects.requireNonNull(defaultText);
        this.parser = Objects.requireNonNull(parser);
        this.description = Objects.requireNonNull(description);
    }

    public String name() {
        return name;
    }

    public String defaultText() {
        return defaultText;
    }

    public String description() {
        return description;
    }

    /**
     * A key of a module outside {@code common} (a tier, a transport, the namenode): declared by that
     * module in a {@link ConfKeySource}, so the configuration knows it wherever the module is on
     * the class path. The default must parse; a default that does not is a bug, caught here.
     */
    public static <T> ConfKey<T> of(String name, String defaultText, Function<String, T> parser, String description) {
        ConfKey<T> k = new ConfKey<>(name, defaultText, parser, description);
        k.parse(defaultText);
        return k;
    }

    /** Parses a value for this key; throws {@link IllegalArgumentException} saying what is wrong. */
    public T parse(String text) {
        return parser.apply(text.trim());
    }

    @Override
    public String toString() {
        return name;
    }
}
