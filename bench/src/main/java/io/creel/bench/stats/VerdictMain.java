package io.creel.bench.stats;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@link Verdict}'s rule for the bench's shell scripts ({@code bench/scripts/fs-bulk.sh}), so that
 * they judge as the bench does instead of with a copy of the rule:
 * {@code java -cp creel-bench.jar io.creel.bench.stats.VerdictMain atLeast|atMost GOAL RATIO BASELINE...}
 * prints the verdict and the baseline's deviation from its median, e.g. {@code unsettled 0.3812}.
 */
public final class VerdictMain {
    private VerdictMain() {
    }

    /** Runs the rule on the command line's figures; exit code 2 on a malformed command line. */
    public static void main(String[] args) {
        int rc = run(args, System.out, System.err);
        if (rc != 0) {
            System.exit(rc);
        }
    }

    /** The rule on {@code args}, printed to {@code out}; returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 4 || !(args[0].equals("atLeast") || args[0].equals("atMost"))) {
            err.println("usage: VerdictMain atLeast|atMost GOAL RATIO BASELINE_SAMPLE...");
            return 2;
        }
        try {
            double goalValue = Double.parseDouble(args[1]);
            Goal goal = args[0].equals("atLeast") ? Goal.atLeast(goalValue) : Goal.atMost(goalValue);
            double ratio = Double.parseDouble(args[2]);
            double[] samples = Arrays.stream(args, 3, args.length).mapToDouble(Double::parseDouble).toArray();
            Spread baseline = Spread.of(samples);
            out.println(Verdict.of(goal, ratio, baseline).text() + " "
                    + String.format(Locale.ROOT, "%.4f", baseline.deviation()));
            return 0;
        } catch (IllegalArgumentException e) {
            err.println("VerdictMain: " + e.getMessage());
            return 2;
        }
    }
}
