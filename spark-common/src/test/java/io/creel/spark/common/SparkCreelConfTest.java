package io.creel.spark.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.conf.ConfKeys;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.time.Duration;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;

class SparkCreelConfTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        SparkCreelConf c = SparkCreelConf.from(new SparkConf(false));
        assertEquals("/spark-shuffle", c.root());
        assertEquals("", c.storageClass());
        assertTrue(c.preferLocal());
        assertEquals(48L << 20, c.maxBytesInFlight(), "spark.reducer.maxSizeInFlight's default");
        assertEquals(4 << 20, c.readChunk());
        assertEquals(64L << 20, c.indexCacheBytes());
        assertEquals(Duration.ofSeconds(30), c.heartbeat());
        assertEquals("creel://localhost:9060", c.creel().get(ConfKeys.NAMENODE_ADDRESS).get(0).toUri());
    }

    @Test
    void sparkCreelKeysMapOntoCreelKeys() {
        SparkCreelConf c = SparkCreelConf.from(new SparkConf(false)
                .set("spark.creel.namenode.address", "creel://nn1:9000,creel://nn2:9000")
                .set("spark.creel.conf.creel.block.size", "64k")
                .set("spark.creel.shuffle.root", "/tmp-shuffle/")
                .set("spark.creel.shuffle.storageClass", "disk")
                .set("spark.creel.shuffle.preferLocal", "false")
                .set("spark.reducer.maxSizeInFlight", "96")
                .set("spark.creel.shuffle.readChunk", "1m"));
        assertEquals(2, c.creel().get(ConfKeys.NAMENODE_ADDRESS).size());
        assertEquals(64 << 10, c.creel().get(ConfKeys.BLOCK_SIZE));
        assertEquals("/tmp-shuffle", c.root());
        assertEquals("disk", c.storageClass());
        assertEquals(false, c.preferLocal());
        assertEquals(96L << 20, c.maxBytesInFlight(), "a bare maxSizeInFlight is in MiB, as in Spark");
        assertEquals(1 << 20, c.readChunk());
    }

    @Test
    void badValuesNameTheirKey() {
        assertKey(SparkCreelConf.REPLICATION, "9", SparkCreelConf.REPLICATION);
        assertKey(SparkCreelConf.REPLICATION, "two", SparkCreelConf.REPLICATION);
        assertKey("spark.creel.conf.creel.block.size", "3k", "creel.block.size");
        assertKey("spark.creel.shuffle.root", "/", SparkCreelConf.ROOT);
        assertKey("spark.creel.shuffle.root", "relative", SparkCreelConf.ROOT);
        assertKey("spark.creel.shuffle.readChunk", "1k", SparkCreelConf.READ_CHUNK);
        assertKey("spark.creel.shuffle.heartbeatInterval", "0s", SparkCreelConf.HEARTBEAT);
        assertKey("spark.creel.shuffle.preferLocal", "maybe", SparkCreelConf.PREFER_LOCAL);
        assertKey("spark.creel.conf.creel.no.such.key", "1", "creel.no.such.key");
        assertKey(SparkCreelConf.LAYOUT, "by-map", SparkCreelConf.LAYOUT);
        assertKey(SparkCreelConf.MERGED_FROM, "-1", SparkCreelConf.MERGED_FROM);
        assertKey(SparkCreelConf.MERGED_FROM, "lots", SparkCreelConf.MERGED_FROM);
    }

    @Test
    void theLayoutIsChosenByKeyOrByMapsTimesReducers() {
        SparkCreelConf auto = SparkCreelConf.from(new SparkConf(false));
        assertFalse(auto.merged(999, 1000), "auto: below the threshold stays per map");
        assertTrue(auto.merged(1000, 1000), "auto: merged from 1,000,000 maps x reducers");
        SparkCreelConf lower = SparkCreelConf.from(new SparkConf(false).set(SparkCreelConf.MERGED_FROM, "100"));
        assertTrue(lower.merged(10, 10));
        assertTrue(SparkCreelConf.from(new SparkConf(false).set(SparkCreelConf.LAYOUT, "merged")).merged(1, 1));
        assertFalse(SparkCreelConf.from(new SparkConf(false).set(SparkCreelConf.LAYOUT, "per-map"))
                .merged(10_000, 10_000));
    }

    private static void assertKey(String key, String value, String named) {
        CreelException e = assertThrows(CreelException.class,
                () -> SparkCreelConf.from(new SparkConf(false).set(key, value)));
        assertEquals(ErrorCode.CONFIGURATION, e.code());
        assertTrue(e.getMessage().contains(named), e.getMessage());
    }

    @Test
    void keysAreSpelledAsCreelsOwnAndTheEarlierCamelCaseSpellingsStillWork() {
        SparkCreelConf c = SparkCreelConf.from(new SparkConf(false)
                .set("spark.creel.shuffle.storage.class", "disk")
                .set("spark.creel.shuffle.prefer.local", "false")
                .set("spark.creel.shuffle.max.bytes.in.flight", "8m")
                .set("spark.creel.shuffle.read.chunk", "1m")
                .set("spark.creel.shuffle.index.cache.size", "1m")
                .set("spark.creel.shuffle.heartbeat.interval", "5s"));
        assertEquals("disk", c.storageClass());
        assertEquals(false, c.preferLocal());
        assertEquals(8L << 20, c.maxBytesInFlight());
        assertEquals(1 << 20, c.readChunk());
        assertEquals(1L << 20, c.indexCacheBytes());
        assertEquals(Duration.ofSeconds(5), c.heartbeat());

        SparkCreelConf old = SparkCreelConf.from(new SparkConf(false)
                .set("spark.creel.shuffle.maxBytesInFlight", "8m")
                .set("spark.creel.shuffle.indexCacheSize", "1m")
                .set("spark.creel.shuffle.heartbeatInterval", "5s"));
        assertEquals(8L << 20, old.maxBytesInFlight());
        assertEquals(1L << 20, old.indexCacheBytes());
        assertEquals(Duration.ofSeconds(5), old.heartbeat());

        SparkCreelConf both = SparkCreelConf.from(new SparkConf(false)
                .set("spark.creel.shuffle.storageClass", "disk")
                .set("spark.creel.shuffle.storage.class", "dram"));
        assertEquals("dram", both.storageClass(), "the one spelling wins over the deprecated one");
    }

    @Test
    void aBadValueUnderADeprecatedSpellingNamesThatSpellingAndTheKeysOne() {
        CreelException e = assertThrows(CreelException.class,
                () -> SparkCreelConf.from(new SparkConf(false).set("spark.creel.shuffle.readChunk", "1k")));
        assertTrue(e.getMessage().startsWith("spark.creel.shuffle.readChunk (the deprecated spelling of "
                + "spark.creel.shuffle.read.chunk) = '1k': "), e.getMessage());
    }
}
