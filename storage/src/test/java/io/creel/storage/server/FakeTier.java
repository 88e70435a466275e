package io.creel.storage.server;

import io.creel.storage.spi.StorageTier;
import io.creel.storage.spi.TierContext;
import io.creel.storage.spi.Volume;

/** The "fake" tier: binds the port as its {@link ServerPlan} says and opens a {@link FakeVolume}. */
public final class FakeTier implements StorageTier {
    @Override
    public String name() {
        return "fake";
    }

    @Override
    public Volume open(TierContext context) {
        ServerPlan plan = ServerPlan.of(context.hostId());
        plan.event("tier opened");
        for (int i = 0; i < plan.listenCalls; i++) {
            plan.bound(context.listen(plan.port));
            plan.event("port bound");
        }
        if (plan.tierFailure != null) {
            throw plan.tierFailure;
        }
        plan.volume = new FakeVolume(plan);
        return plan.volume;
    }
}
