package io.creel.bench.user;

/**
 * What a fresh client JVM ({@link FreshClientMain}) reports of its one transfer, as the one line
 * {@code RESULT bytes=<n> nanos=<t> setupNanos=<s>} on its standard output.
 *
 * @param bytes      bytes moved
 * @param nanos      time of the transfer itself (from the node in hand to the last byte read, or committed)
 * @param setupNanos time before it: connecting, and the lookup or create that gave the node
 */
public record TransferResult(long bytes, long nanos, long setupNanos) {
    private static final String PREFIX = "RESULT ";

    public TransferResult {
        if (bytes < 0 || nanos <= 0 || setupNanos < 0) {
            throw new IllegalArgumentException("impossible transfer figures: bytes " + bytes + ", nanos " + nanos
                    + ", setup " + setupNanos);
        }
    }

    /** The result line. */
    public String format() {
        return PREFIX + "bytes=" + bytes + " nanos=" + nanos + " setupNanos=" + setupNanos;
    }

    /** The result in {@code output}'s first RESULT line; an error naming the output if there is none. */
    public static TransferResult parse(String output) {
        for (String line : output.split("\\R")) {
            String l = line.trim();
            if (!l.startsWith(PREFIX)) {
                continue;
            }
            long bytes = -1;
            long nanos = -1;
            long setup = -1;
            for (String field : l.substring(PREFIX.length()).trim().split("\\s+")) {
                int eq = field.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("malformed field '" + field + "' in: " + l);
                }
                long v;
                try {
                    v = Long.parseLong(field.substring(eq + 1));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("'" + field + "' is not a number in: " + l, e);
                }
                switch (field.substring(0, eq)) {
                    case "bytes" -> bytes = v;
                    case "nanos" -> nanos = v;
                    case "setupNanos" -> setup = v;
                    default -> throw new IllegalArgumentException("unknown field '" + field + "' in: " + l);
                }
            }
            if (bytes < 0 || nanos < 0 || setup < 0) {
                throw new IllegalArgumentException("a RESULT line needs bytes, nanos and setupNanos: " + l);
            }
            return new TransferResult(bytes, nanos, setup);
        }
        throw new IllegalArgumentException("no RESULT line in the client's output: " + output);
    }
}
