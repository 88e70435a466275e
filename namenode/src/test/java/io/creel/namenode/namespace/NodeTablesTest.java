package io.creel.namenode.namespace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.common.namespace.NodeType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The namespace's own hash tables — children by name ({@link ChildTable}) and nodes by id
 * ({@link NodeIndex}) — answer like a {@link HashMap} through long random runs of puts, replacements
 * and removals (which shift later entries back into the gap), at every size they grow and shrink to.
 */
class NodeTablesTest {
    private static final Container PARENT = new Container(1, NodeType.DIRECTORY, new byte[0], null,
            Placement.INHERIT, true, 0, Node.State.LIVE);

    private static Node node(long id, String name) {
        return new DataNode(id, NodeType.FILE, name.getBytes(StandardCharsets.UTF_8), PARENT, Placement.INHERIT, 0,
                Node.State.LIVE);
    }

    private static Node find(ChildTable t, String name) {
        byte[] b = ("/x/" + name).getBytes(StandardCharsets.UTF_8); // looked up inside a longer array, as paths are
        return t.get(b, 3, b.length, ChildTable.hash(b, 3, b.length));
    }

    @Test
    void childrenByNameMatchAMapThroughRandomChanges() {
        Random r = new Random(11);
        ChildTable t = new ChildTable();
        Map<String, Node> model = new HashMap<>();
        long id = 100;
        for (int step = 0; step < 200_000; step++) {
            // Few names at first, many later: the table grows, and shrinks again as removals win.
            int names = step < 100_000 ? 50 + step / 20 : 5000;
            String name = "n" + r.nextInt(names);
            int op = r.nextInt(step < 150_000 ? 10 : 4);
            if (op < 5) {
                Node n = node(id++, name);
                assertSame(model.put(name, n), t.put(n), "put of " + name + " returns the node replaced");
            } else if (op < 8) {
                Node present = model.get(name);
                Node stranger = node(id++, name);
                assertFalse(t.remove(stranger), "only the very node under a name is removed");
                assertEquals(present != null, t.remove(present == null ? stranger : present));
                model.remove(name);
            } else {
                assertSame(model.get(name), find(t, name), "lookup of " + name + " at step " + step);
            }
            assertEquals(model.size(), t.size());
        }
        for (Map.Entry<String, Node> e : model.entrySet()) {
            assertSame(e.getValue(), find(t, e.getKey()));
        }
        assertEquals(new HashSet<>(model.values()), new HashSet<>(t.toList()));
        assertNull(find(t, "never-there"));
    }

    @Test
    void nodesByIdMatchAMapThroughRandomChanges() {
        Random r = new Random(12);
        NodeIndex index = new NodeIndex();
        Map<Long, Node> model = new HashMap<>();
        // Ids as the namespace hands them out: consecutive, from a large base.
        long base = 1_700_000_000_000L << 20;
        for (int step = 0; step < 200_000; step++) {
            long id = base + r.nextInt(step < 100_000 ? 1000 + step / 10 : 12_000);
            int op = r.nextInt(step < 150_000 ? 10 : 4);
            if (op < 5) {
                Node n = node(id, "x");
                model.put(id, n);
                index.put(n);
            } else if (op < 8) {
                model.remove(id);
                index.remove(id);
            } else {
                assertSame(model.get(id), index.get(id), "id " + id + " at step " + step);
            }
            assertEquals(model.size(), index.size());
        }
        for (Map.Entry<Long, Node> e : model.entrySet()) {
            assertSame(e.getValue(), index.get(e.getKey()));
        }
        List<Long> odd = new ArrayList<>();
        model.keySet().forEach(k -> {
            if (k % 2 == 1) {
                odd.add(k);
            }
        });
        index.removeIf(n -> n.id % 2 == 1);
        odd.forEach(model::remove);
        assertEquals(model.size(), index.size());
        for (long k : odd) {
            assertNull(index.get(k));
        }
        for (Map.Entry<Long, Node> e : model.entrySet()) {
            assertSame(e.getValue(), index.get(e.getKey()));
        }
        assertTrue(model.size() > 1000, "the run ended with a large table: " + model.size());
    }
}
