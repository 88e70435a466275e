package io.creel.namenode.namespace;

import io.creel.namenode.allocation.BlockAllocator;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * How nodes leave the namespace: taken out of their parent, then retired with everything below them
 * — leases end, blocks start their reuse delay, expiring nodes no longer expire, and the ids stay resolvable (for readers still
 * mapping their blocks) until the delay ends. Called under the namespace lock.
 */
final class Retirement {
    private final NodeTable nodes;
    private final Leases leases;
    private final BlockAllocator allocator;
    private final ReuseQueue reuse;
    private final LongSupplier clock;
    private final OwnedNodes owned;

    Retirement(NodeTable nodes, Leases leases, BlockAllocator allocator, ReuseQueue reuse, LongSupplier clock,
               OwnedNodes owned) {
        this.owned = owned;
        this.nodes = nodes;
        this.leases = leases;
        this.allocator = allocator;
        this.reuse = reuse;
        this.clock = clock;
    }

    /** Takes the node out of its parent's children (if it is there). */
    void detach(Node n) {
        if (n.parent != null && n.parent.removeChild(n)) {
            n.parent.modifiedMillis = clock.getAsLong();
        }
    }

    /** Retires a node and everything below it (see the class comment). */
    void retire(Node top) {
        ArrayDeque<Node> todo = new ArrayDeque<>();
        todo.push(top);
        while (!todo.isEmpty()) {
            Node x = todo.pop();
            if (x.state == Node.State.RETIRED) {
                continue;
            }
            if (x.state == Node.State.LIVE) {
                nodes.liveRemoved(x.type);
            }
            x.state = Node.State.RETIRED;
            if (!owned.isEmpty()) {
                owned.drop(x.id); // an expiring node inside a removed subtree: nothing left to expire
            }
            if (x instanceof DataNode d) {
                leases.release(d);
            } else {
                Container c = (Container) x;
                c.childList().forEach(todo::push);
                c.pendingList().forEach(todo::push);
            }
            if (x.blockCount() > 0) {
                allocator.retire(x.blocks());
            }
            long id = x.id;
            reuse.later(() -> nodes.forget(id));
        }
    }
}
