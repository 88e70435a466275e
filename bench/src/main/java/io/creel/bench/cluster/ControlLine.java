package io.creel.bench.cluster;

import java.util.Optional;

/**
 * The line protocol between the bench and the cluster process it started, over the child's
 * standard input and output (its log goes to a file). The child says {@code READY <address> <pid>}
 * once its cluster serves, answers {@link #MEMORY_REQUEST} with {@code MEMORY <heap> <direct>},
 * and stops on {@link #STOP_REQUEST} or when its input ends (the bench is gone), saying
 * {@code STOPPED}; a failure is {@code ERROR <text>}. One line each, so the codec is this class
 * and the logic is elsewhere.
 */
public final class ControlLine {
    /** The bench asks for the process's memory use. */
    public static final String MEMORY_REQUEST = "memory";
    /** The bench asks the cluster to stop. */
    public static final String STOP_REQUEST = "stop";
    /** The child's last line after a clean stop. */
    public static final String STOPPED = "STOPPED";

    private static final String READY = "READY ";
    private static final String MEMORY = "MEMORY ";
    private static final String ERROR = "ERROR ";

    /** The cluster serving at {@code address} in process {@code pid}. */
    public record Ready(String address, long pid) {
    }

    private ControlLine() {
    }

    public static String ready(String address, long pid) {
        if (address.isBlank() || address.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("a cluster address cannot be blank or hold white space: '" + address
                    + "'");
        }
        return READY + address + " " + pid;
    }

    /** The READY line's address and pid; empty if {@code line} is not a READY line. */
    public static Optional<Ready> parseReady(String line) {
        if (!line.startsWith(READY)) {
            return Optional.empty();
        }
        String[] f = line.substring(READY.length()).trim().split(" ");
        if (f.length != 2) {
            throw new IllegalArgumentException("malformed READY line (want READY <address> <pid>): " + line);
        }
        return Optional.of(new Ready(f[0], parseLong(f[1], line)));
    }

    public static String memory(MemoryUse m) {
        return MEMORY + m.heapBytes() + " " + m.directBytes();
    }

    /** The MEMORY line's figures; an error if {@code line} is not a well-formed MEMORY line. */
    public static MemoryUse parseMemory(String line) {
        if (!line.startsWith(MEMORY)) {
            throw new IllegalArgumentException("expected MEMORY <heap> <direct>, got: " + line);
        }
        String[] f = line.substring(MEMORY.length()).trim().split(" ");
        if (f.length != 2) {
            throw new IllegalArgumentException("malformed MEMORY line (want MEMORY <heap> <direct>): " + line);
        }
        return new MemoryUse(parseLong(f[0], line), parseLong(f[1], line));
    }

    /** An error line; line breaks in {@code text} become spaces so it stays one line. */
    public static String error(String text) {
        return ERROR + text.replaceAll("[\\r\\n]+", " ");
    }

    /** The text of an ERROR line; empty if {@code line} is not one. */
    public static Optional<String> parseError(String line) {
        return line.startsWith(ERROR) ? Optional.of(line.substring(ERROR.length())) : Optional.empty();
    }

    private static long parseLong(String field, String line) {
        try {
            return Long.parseLong(field);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + field + "' is not a number in: " + line, e);
        }
    }
}
