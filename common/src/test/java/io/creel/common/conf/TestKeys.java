package io.creel.common.conf;

import java.util.List;

/** A module's key source, as a tier declares its keys; registered in the test resources. */
public final class TestKeys implements ConfKeySource {
    static final ConfKey<Integer> WIDGETS = ConfKey.of("creel.test.widgets", "3",
            v -> ConfValues.parseInt(v, 0, 100), "Widgets, for the configuration tests.");

    @Override
    public List<ConfKey<?>> keys() {
        return List.of(WIDGETS);
    }
}
