package io.creel.namenode.testing;

import java.util.function.LongSupplier;

/** A clock tests move by hand, so delays are tested without sleeping. */
public final class ManualClock implements LongSupplier {
    private long now = 1_700_000_000_000L;

    @Override
    public synchronized long getAsLong() {
        return now;
    }

    public synchronized void advance(long millis) {
        now += millis;
    }
}
