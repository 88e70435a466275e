package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.RequestIdentity;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moving (renaming) a node, atomic within the namespace: the node takes its new place at once; its
 * new directory record is written first and the old one cleared only after, so a failed write can
 * move it back (unless the namespace changed meanwhile). Called under the namespace lock.
 */
final class Renames {
    private static final Logger LOG = LoggerFactory.getLogger(Renames.class);

    private final Namespace namespace;
    private final NodeTable nodes;
    private final ReuseQueue reuse;
    private final DirectoryRecords records;
    private final LongSupplier clock;

    Renames(Namespace namespace, NodeTable nodes, ReuseQueue reuse, DirectoryRecords records, LongSupplier clock) {
        this.namespace = namespace;
        this.nodes = nodes;
        this.reuse = reuse;
        this.records = records;
        this.clock = clock;
    }

    /** See {@link Namespace#move(String, String, RequestIdentity)}. */
    CompletableFuture<OpenReply> move(String sourceText, String targetText, RequestIdentity request) {
        reuse.runDue();
        Utf8Path source = Utf8Path.parse(sourceText);
        Utf8Path target = Utf8Path.parse(targetText);
        if (source.isRoot()) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "/: the root directory cannot be moved");
        }
        Node n = nodes.resolve(source);
        if (target.isRoot() || target.equals(source)) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "cannot move " + source + " to " + target
                    + ": the target exists");
        }
        if (n.type.isContainer() && target.isWithin(source)) {
            throw new CreelException(ErrorCode.UNSUPPORTED, "cannot move " + source + " to " + target
                    + ": a " + n.type.displayName() + " cannot move into its own subtree");
        }
        Container newParent = nodes.resolveParent(target, n.type);
        byte[] newName = target.name();
        Node clash = newParent.child(newName);
        if (clash != null) {
            throw new CreelException(ErrorCode.ALREADY_EXISTS, "cannot move " + source + " to " + target
                    + ": the target exists (a " + clash.type.displayName() + ")");
        }
        Position old = Position.of(n);
        long now = clock.getAsLong();
        old.parent.removeChild(n);
        place(n, new Position(newParent, newName, -1));
        CompletableFuture<Void> added;
        try {
            added = namespace.addRecord(newParent, n);
        } catch (CreelException e) {
            newParent.removeChild(n);
            place(n, old);
            throw e;
        }
        old.parent.modifiedMillis = now;
        newParent.modifiedMillis = now;
        n.modifiedMillis = now;
        namespace.log().moved(n.id, newParent.id, n.name, n.slot, now);
        namespace.expect(namespace.readerReply(n));
        // The old record is cleared only once the new one is written, so a failure can move the node back.
        return added.handle((v, err) -> {
            synchronized (namespace) {
                if (err != null) {
                    undoMove(n, newParent, old, source, target, request);
                    throw DirectoryRecords.failure(target.toString(), err);
                }
                return old.slot < 0 || !old.parent.enumerable ? CompletableFuture.<Void>completedFuture(null)
                        : records.clear(old.parent, old.slot);
            }
        }).thenCompose(cleared -> cleared.handle((v, err) -> {
            if (err != null) {
                LOG.warn("{} moved to {}, but its old directory record could not be cleared: {}", source, target,
                        CreelException.unwrap(err).getMessage());
            }
            synchronized (namespace) {
                return namespace.readerReply(n);
            }
        }));
    }

    /** Where a node sits: its container, its name there, its record slot. */
    private record Position(Container parent, byte[] name, int slot) {
        static Position of(Node n) {
            return new Position(n.parent, n.name, n.slot);
        }
    }

    /** Puts {@code n} at {@code p} (its record slot as given; the record is not written here). */
    private static void place(Node n, Position p) {
        n.parent = p.parent();
        n.rename(p.name());
        n.slot = p.slot();
        p.parent().putChild(n);
    }

    /** Moves {@code n} back to {@code old} after its new record could not be written, if nothing changed meanwhile. */
    private void undoMove(Node n, Container newParent, Position old, Utf8Path source, Utf8Path target,
                          RequestIdentity request) {
        boolean movable = n.state == Node.State.LIVE && n.parent == newParent
                && old.parent.state == Node.State.LIVE && old.parent.child(old.name) == null;
        if (!movable) {
            LOG.warn("cannot undo the move of {} to {} after its record write failed: the namespace changed meanwhile",
                    source, target);
            return;
        }
        records.free(newParent, n);
        newParent.removeChild(n);
        place(n, old);
        namespace.log().moved(n.id, old.parent.id, old.name, old.slot, n.modifiedMillis);
        namespace.withdraw(request);
        if (old.parent.enumerable && old.slot >= 0) {
            // Its old record is not necessarily where it was: if the records block moved meanwhile, it
            // was rewritten from the namespace while the node sat at its new slot, and the old one
            // was written cleared. Writing it again (the same bytes otherwise) keeps it listed.
            records.write(old.parent, n).whenComplete((v, err) -> {
                if (err != null) {
                    LOG.warn("{} is back after its move to {} failed, but its record could not be written again "
                            + "(it is missing from listings until its container's records are rewritten): {}",
                            source, target, CreelException.unwrap(err).getMessage());
                }
            });
        }
    }
}
