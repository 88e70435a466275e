package io.creel.client.integration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.common.conf.ConfKeys;
import io.creel.common.conf.CreelConf;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One client per configuration in a process: handles share it, the last handle closes it, and what
 * holders attach to it lives exactly as long.
 */
class SharedClientsTest {
    private static final AtomicInteger PORTS = new AtomicInteger(40000);

    /** A configuration no other test uses (the registry is the process's). */
    private static CreelConf conf(Map<String, String> more) {
        Map<String, String> s = new HashMap<>(more);
        s.put("creel.namenode.address", "creel://nn.test:" + PORTS.incrementAndGet());
        return CreelConf.of(s);
    }

    @Test
    void handlesOfTheSameSettingsShareOneClientUntilTheLastOneCloses() {
        CreelConf conf = conf(Map.of());
        int before = SharedClients.open();
        SharedClient a = SharedClients.acquire(conf);
        SharedClient b = SharedClients.acquire(conf);
        assertSame(a.client(), b.client());
        assertEquals(before + 1, SharedClients.open());
        CreelClient first = a.client();
        a.close();
        a.close(); // a second close gives nothing back twice
        assertSame(first, b.client(), "the other holder still has it");
        assertEquals(before + 1, SharedClients.open());
        b.close();
        assertEquals(before, SharedClients.open(), "the last handle closed it");
        try (SharedClient c = SharedClients.acquire(conf)) {
            assertNotSame(first, c.client(), "a holder after the last close gets a new client");
        }
    }

    @Test
    void settingsThatAreTheSameWhetherWrittenOrDefaultedShareAndOthersDoNot() {
        CreelConf plain = conf(Map.of());
        CreelConf spelledOut = plain.with(ConfKeys.BLOCK_SIZE, ConfKeys.BLOCK_SIZE.defaultText());
        CreelConf other = plain.with(Map.of("creel.client.request.timeout", "7s"));
        try (SharedClient a = SharedClients.acquire(plain);
             SharedClient b = SharedClients.acquire(spelledOut);
             SharedClient c = SharedClients.acquire(other)) {
            assertSame(a.client(), b.client(), "a default written out is still the default");
            assertNotSame(a.client(), c.client(), "another timeout is another client");
        }
    }

    @Test
    void attachmentsAreMadeOnceAndClosedWithTheClientLatestFirst() {
        CreelConf conf = conf(Map.of());
        List<String> closed = new ArrayList<>();
        record Tables(List<String> log) implements AutoCloseable {
            @Override
            public void close() {
                log.add("tables");
            }
        }
        record Failures(List<String> log) implements AutoCloseable {
            @Override
            public void close() {
                log.add("failures");
            }
        }
        SharedClient a = SharedClients.acquire(conf);
        SharedClient b = SharedClients.acquire(conf);
        AtomicInteger made = new AtomicInteger();
        Tables t = a.attachment(Tables.class, c -> {
            made.incrementAndGet();
            return new Tables(closed);
        });
        assertSame(t, b.attachment(Tables.class, c -> new Tables(closed)), "the other holder gets the same one");
        b.attachment(Failures.class, c -> new Failures(closed));
        assertEquals(1, made.get());
        a.close();
        assertTrue(closed.isEmpty(), "closed while a holder remains: " + closed);
        b.close();
        assertEquals(List.of("failures", "tables"), closed);
    }

    @Test
    void aClosedHandleNoLongerGivesTheClient() {
        SharedClient a = SharedClients.acquire(conf(Map.of()));
        a.close();
        IllegalStateException e = assertThrows(IllegalStateException.class, a::client);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }
}
