package io.creel.namenode.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.namespace.NodeType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The ordered index of a Table against a plain sorted map, through random puts, replacements and
 * removals large enough to split and merge many leaves: every walk from any start key sees exactly
 * the map's keys from there, in UTF-8 byte order, with the node put last under each name.
 */
class OrderedKeysTest {
    private long ids;

    private Node node(String name) {
        return new DataNode(++ids, NodeType.KEYVALUE, name.getBytes(StandardCharsets.UTF_8), null, Placement.INHERIT,
                0, Node.State.LIVE);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void check(OrderedKeys keys, TreeMap<byte[], Node> model, byte[] from, boolean after) {
        Iterator<Node> it = keys.from(from, after);
        for (Node expected : model.tailMap(from, !after).values()) {
            assertTrue(it.hasNext(), "missing " + expected.nameString());
            assertSame(expected, it.next());
        }
        assertTrue(!it.hasNext(), "nothing after the last key");
    }

    @Test
    void randomPutsReplacementsAndRemovalsKeepEveryKeyInByteOrder() {
        Random random = new Random(5);
        OrderedKeys keys = new OrderedKeys();
        TreeMap<byte[], Node> model = new TreeMap<>(Arrays::compareUnsigned);
        String[] alphabet = {"a", "b", "ab", "user", "é", "日本", "z", "0", "~", "\uD83D\uDE00"};
        for (int step = 0; step < 60_000; step++) {
            StringBuilder name = new StringBuilder(random.nextBoolean() ? "user" : "");
            int parts = 1 + random.nextInt(4);
            for (int i = 0; i < parts; i++) {
                name.append(alphabet[random.nextInt(alphabet.length)]);
            }
            name.append(random.nextInt(step < 40_000 ? 5000 : 500));
            byte[] b = utf8(name.toString());
            if (random.nextInt(step < 40_000 ? 4 : 2) == 0) {
                Node gone = model.remove(b);
                if (gone != null) {
                    keys.remove(gone);
                }
            } else {
                Node n = node(name.toString());
                model.put(b, n);
                keys.put(n);
            }
            assertEquals(model.size(), keys.size());
            if (step % 5000 == 0) {
                check(keys, model, new byte[0], false);
            }
        }
        check(keys, model, new byte[0], false);
        List<byte[]> starts = new ArrayList<>(model.keySet());
        for (int i = 0; i < 200; i++) {
            byte[] start = starts.get(random.nextInt(starts.size()));
            check(keys, model, start, false);
            check(keys, model, start, true);
            byte[] between = Arrays.copyOf(start, start.length + 1);
            between[start.length] = 1; // just above start, a key that is not there
            check(keys, model, between, false);
        }
        for (Map.Entry<byte[], Node> e : new ArrayList<>(model.entrySet())) {
            keys.remove(e.getValue());
        }
        assertEquals(0, keys.size());
        assertTrue(!keys.from(new byte[0], false).hasNext(), "empty again");
        Node again = node("again");
        keys.put(again);
        Iterator<Node> it = keys.from(new byte[0], false);
        assertSame(again, it.next());
        assertTrue(!it.hasNext());
    }

    @Test
    void namesSharingTheirFirstEightBytesAndShorterNamesOrderByTheirWholeBytes() {
        OrderedKeys keys = new OrderedKeys();
        List<String> names = List.of("user0000", "user00001", "user0000a", "user000", "user00000000000000000002",
                "user00000000000000000001", "usel", "uses", "\u00ff", "\u0100");
        for (String n : names) {
            keys.put(node(n));
        }
        List<String> got = new ArrayList<>();
        keys.from(new byte[0], false).forEachRemaining(n -> got.add(n.nameString()));
        List<String> expected = new ArrayList<>(names);
        expected.sort((x, y) -> Arrays.compareUnsigned(utf8(x), utf8(y)));
        assertEquals(expected, got);
        assertEquals("user00000000000000000001", keys.from(utf8("user0000"), true).next().nameString(),
                "the first name above user0000, whose first eight bytes it shares");
        assertEquals("user0000", keys.from(utf8("user0000"), false).next().nameString());
        assertEquals("user00001", keys.from(utf8("user00000000000000000003"), false).next().nameString());
    }
}
