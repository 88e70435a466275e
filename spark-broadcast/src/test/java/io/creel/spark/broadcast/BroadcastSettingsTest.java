package io.creel.spark.broadcast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

/** The broadcast keys: spelled as every integration's, the earlier spelling of the storage class still read. */
class BroadcastSettingsTest {
    @Test
    void theStorageClassHasTheSpellingOfEveryIntegrationAndTheEarlierOneStillWorks() {
        assertEquals("spark.creel.broadcast.storage.class", BroadcastSettings.STORAGE_CLASS);
        assertEquals("disk", BroadcastSettings.from(new SparkConf(false)
                .set("spark.creel.broadcast.storage.class", "disk")).storageClass());
        assertEquals("disk", BroadcastSettings.from(new SparkConf(false)
                .set("spark.creel.broadcast.storageClass", "disk")).storageClass());
        assertEquals("", BroadcastSettings.from(new SparkConf(false)).storageClass(), "empty inherits");
        assertEquals("/jobs/bc", BroadcastSettings.from(new SparkConf(false)
                .set("spark.creel.broadcast.root", "/jobs/bc/")).root());
    }
}
