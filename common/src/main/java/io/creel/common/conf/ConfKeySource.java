package io.creel.common.conf;

import java.util.List;

/**
 * The configuration keys one module declares — a tier its sizes and paths, the namenode its
 * timeouts. Found through {@link java.util.ServiceLoader}
 * ({@code META-INF/services/io.creel.common.conf.ConfKeySource}), so {@link ConfKeys#all()} knows
 * every key of every module on the class path without {@code common} naming them.
 */
public interface ConfKeySource {
    /** The module's keys, in documentation order. */
    List<ConfKey<?>> keys();
}
