package io.creel.bench.user;

import io.creel.common.conf.CreelConf;
import io.creel.storage.local.LocalTierKeys;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The {@code bin/creel} a user runs, found through the {@code creel.home} system property that
 * {@code bin/creel} sets, and the command lines of the user-level figures: {@code fs get},
 * {@code fs put} and {@code fs stat} against the bench's cluster (its address and settings given
 * with {@code --conf}), on the same-host path or with same-host access off (TCP).
 */
public final class CreelCli {
    /** System property {@code bin/creel} sets to the installation's directory. */
    public static final String HOME_PROPERTY = "creel.home";

    private final Path executable;
    private final CreelConf conf;

    public CreelCli(Path executable, CreelConf conf) {
        this.executable = executable;
        this.conf = conf;
    }

    /** {@code $creel.home/bin/creel} if this JVM was started by it and it is executable. */
    public static Optional<Path> find() {
        String home = System.getProperty(HOME_PROPERTY);
        if (home == null || home.isBlank()) {
            return Optional.empty();
        }
        Path p = Path.of(home, "bin", "creel");
        return Files.isExecutable(p) ? Optional.of(p) : Optional.empty();
    }

    public Path executable() {
        return executable;
    }

    /** {@code bin/creel fs get PATH LOCAL}. */
    public List<String> get(String path, Path local, boolean tcp) {
        return command(tcp, "get", path, local.toString());
    }

    /** {@code bin/creel fs put LOCAL PATH}. */
    public List<String> put(Path local, String path, boolean tcp) {
        return command(tcp, "put", local.toString(), path);
    }

    /** {@code bin/creel fs stat PATH}: the same JVM start, connection and lookup as a get, without the transfer. */
    public List<String> stat(String path, boolean tcp) {
        return command(tcp, "stat", path);
    }

    private List<String> command(boolean tcp, String sub, String... args) {
        List<String> cmd = new ArrayList<>(List.of(executable.toString(), "fs", sub));
        cmd.addAll(confArguments(conf, tcp));
        cmd.addAll(List.of(args));
        return cmd;
    }

    /** Client settings of {@code conf} as {@code --conf KEY=VALUE} arguments, with same-host access off for TCP. */
    public static List<String> confArguments(CreelConf conf, boolean tcp) {
        List<String> out = new ArrayList<>();
        conf.explicitSettings().forEach((k, v) -> {
            if (!(tcp && k.equals(LocalTierKeys.LOCAL_ACCESS.name()))) {
                out.add("--conf");
                out.add(k + "=" + v);
            }
        });
        if (tcp) {
            out.add("--conf");
            out.add(LocalTierKeys.LOCAL_ACCESS.name() + "=false");
        }
        return out;
    }
}
