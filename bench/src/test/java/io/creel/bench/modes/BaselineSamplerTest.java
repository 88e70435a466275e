package io.creel.bench.modes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class BaselineSamplerTest {
    @Test
    void threeSamplesOverThreeModesFallBeforeBetweenAndAfterThem() {
        // checkpoints: before mode 1, after 1, after 2, after 3
        assertArrayEquals(new int[] {1, 0, 1, 1}, BaselineSampler.schedule(3, 3));
        assertArrayEquals(new int[] {1, 1, 1, 1}, BaselineSampler.schedule(4, 3));
        assertArrayEquals(new int[] {1, 1, 1}, BaselineSampler.schedule(3, 2));
    }

    @Test
    void theFirstAndLastSampleFrameTheRun() {
        assertArrayEquals(new int[] {1, 0, 0, 0, 0, 1}, BaselineSampler.schedule(2, 5));
        assertArrayEquals(new int[] {1, 0, 1, 0, 1}, BaselineSampler.schedule(3, 4));
    }

    @Test
    void moreSamplesThanCheckpointsShareThemAndNoneMeansNone() {
        assertArrayEquals(new int[] {1, 2}, BaselineSampler.schedule(3, 1));
        assertArrayEquals(new int[] {1, 0}, BaselineSampler.schedule(1, 1));
        assertArrayEquals(new int[] {0, 0, 0}, BaselineSampler.schedule(0, 2));
        assertThrows(IllegalArgumentException.class, () -> BaselineSampler.schedule(-1, 2));
    }
}
