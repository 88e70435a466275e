package io.creel.namenode.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.CredentialList;
import io.creel.common.protocol.CredentialRecord;
import io.creel.common.protocol.Empty;
import io.creel.common.protocol.Message;
import io.creel.common.protocol.NameRequest;
import io.creel.common.protocol.NodeAccess;
import io.creel.common.protocol.NodeReply;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.OpenReply;
import io.creel.common.protocol.ScanReply;
import io.creel.common.protocol.SetAccessRequest;
import io.creel.common.rpc.RpcCall;
import io.creel.common.security.Identity;
import io.creel.namenode.namespace.Ownership;
import io.creel.namenode.security.AccessRule.Need;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namenode's permission checks, one per kind of request, and the requests that change who
 * owns what (SET_ACCESS) and who is who (CREDENTIAL_PUT, _REVOKE, _LIST). With ownership off (no
 * cluster secret) {@link #admit} returns {@code null} and every check passes: the namenode serves
 * as it did before permissions.
 *
 * <p>What each operation needs (the superuser needs nothing), as HDFS asks it — with read standing
 * for HDFS's execute on the way down: every ancestor above a node's parent must be readable.
 * <ul>
 *   <li>lookup: read on the parent (to list it is to see its children); a reader that may not read
 *   the node itself is told its metadata without its first block or inline bytes, and is refused
 *   when it locates its blocks. Opening a File for append: write on it too.</li>
 *   <li>list: read on the container (its records are read as its blocks are); SCAN of an ordered
 *   Table likewise, its reply without the inline values of keys the caller may not read.</li>
 *   <li>create (a KeyValue put included): write on the parent.</li>
 *   <li>remove: write on the parent and on the node; move: write on the source's parent, on the
 *   source, and on the target's parent.</li>
 *   <li>reading blocks by node id (MAP without a lease, LOCATE): read on the node; writing them
 *   (MAP with a lease, COMMIT, SYNC_MANY) and HAND_OVER: write on it.</li>
 *   <li>chmod and chgrp: the owner (chgrp to one of its groups); chown: the superuser.</li>
 *   <li>storage-server registration and heartbeats, decommission, fsck and the credential
 *   requests: the superuser only.</li>
 * </ul>
 */
public final class PermissionGuard {
    private static final Logger LOG = LoggerFactory.getLogger(PermissionGuard.class);

    private final Ownership ownership;

    /** Checks against {@code ownership} (the namespace's), which also says whether checks are on. */
    public PermissionGuard(Ownership ownership) {
        this.ownership = ownership;
    }

    /**
     * Who {@code call} runs as, or {@code null} when ownership is off. Fails UNAUTHENTICATED when the
     * peer proved a credential that is not current here (never issued to this namenode, revoked, or
     * issued again since): revoking refuses an open connection's very next request.
     */
    public Identity admit(RpcCall call) {
        if (!ownership.enforced()) {
            return null;
        }
        Identity who = call.peer().identity();
        if (who == null) {
            throw new CreelException(ErrorCode.UNAUTHENTICATED, "the connection from " + call.peer().remote()
                    + " proved no identity, and this namenode enforces permissions");
        }
        if (!who.superuser() && !who.credential().equals(Identity.CERTIFICATE)) {
            // A certificate's identity is revoked where its authority revokes certificates, not here.
            CredentialRecord current = ownership.credential(who.name());
            if (current == null || !current.id().equals(who.credential())) {
                throw new CreelException(ErrorCode.UNAUTHENTICATED, "identity " + who.name() + "'s credential #"
                        + who.credential() + " is not current at this namenode (" + (current == null
                        ? "revoked, or never issued here" : "issued again since") + "): ask an administrator for "
                        + "a new one");
            }
        }
        return who;
    }

    /** Runs {@code op} (a namespace call) so that the nodes it creates belong to {@code who}. */
    public <T> T as(Identity who, Supplier<T> op) {
        return who == null ? op.get() : ownership.as(who, op);
    }

    /** CREATE of {@code path} (a KeyValue put included): write on its parent. */
    public void mayCreate(Identity who, String path) {
        check(who, path, Need.WRITE, null, "create " + path);
    }

    /** LOOKUP of {@code path}: read on its parent; opening a File for append, write on it too. */
    public void mayLookup(Identity who, String path, boolean forAppend) {
        check(who, path, Need.READ, forAppend ? Need.WRITE : null, (forAppend ? "append to " : "look up ") + path);
    }

    /**
     * {@code reply} as {@code who} may see it: without the node's first block and inline bytes when
     * it may not read the node (it sees the node as its parent's listing shows it).
     */
    public OpenReply shown(Identity who, OpenReply reply) {
        NodeAccess a = reply.node().access();
        if (who == null || a == null || AccessRule.allows(who, groups(who), a, Need.READ)) {
            return reply;
        }
        return new OpenReply(reply.node(), 0, null, null, reply.inlineLimit());
    }

    /** SCAN of the ordered Table at {@code path}: read on it, as listing it needs. */
    public void mayList(Identity who, String path) {
        check(who, path, Need.READ, Need.READ, "scan " + path);
    }

    /** {@code reply} without the inline values of keys {@code who} may not read (their blocks refuse it too). */
    public ScanReply shown(Identity who, ScanReply reply) {
        if (who == null || who.superuser()) {
            return reply;
        }
        List<ScanReply.Entry> out = new java.util.ArrayList<>(reply.entries().size());
        for (ScanReply.Entry e : reply.entries()) {
            NodeAccess a = e.node().access();
            boolean readable = a == null || AccessRule.allows(who, groups(who), a, Need.READ);
            out.add(readable ? e : new ScanReply.Entry(e.name(), e.node(), null));
        }
        return new ScanReply(out, reply.more());
    }

    /** REMOVE (and HAND_OVER) of {@code path}: write on its parent and on it. */
    public void mayRemove(Identity who, String path) {
        check(who, path, Need.WRITE, Need.WRITE, "remove " + path);
    }

    /** MOVE: write on the source, its parent and the target's parent. */
    public void mayMove(Identity who, String source, String target) {
        check(who, source, Need.WRITE, Need.WRITE, "move " + source);
        check(who, target, Need.WRITE, null, "move " + source + " to " + target);
    }

    /** Reading ({@code write} false) or writing node {@code nodeId}'s blocks. */
    public void mayUse(Identity who, long nodeId, boolean write) {
        if (who == null || who.superuser()) {
            return;
        }
        List<Ownership.Located> chain = ownership.chainOf(nodeId);
        if (!chain.isEmpty()) {
            String path = chain.get(chain.size() - 1).path();
            check(who, chain, chain.size() - 1, chain.size() > 1 ? Need.READ : null, write ? Need.WRITE : Need.READ,
                    (write ? "write " : "read ") + path);
        }
    }

    /**
     * What every operation on a path needs: read on each ancestor above the parent (to pass through
     * a container is to read it), {@code parentNeed} on the parent, {@code nodeNeed} (if not null)
     * on the node itself, where they exist.
     */
    private void check(Identity who, String path, Need parentNeed, Need nodeNeed, String what) {
        if (who == null || who.superuser()) {
            return;
        }
        check(who, ownership.chain(path), PathName.parse(path).depth(), parentNeed, nodeNeed, what);
    }

    private void check(Identity who, List<Ownership.Located> chain, int depth, Need parentNeed, Need nodeNeed,
                       String what) {
        List<String> groups = groups(who);
        for (int i = 0; i < chain.size(); i++) {
            Need need = i == depth ? nodeNeed : i == depth - 1 ? parentNeed : Need.READ;
            if (need != null) {
                Ownership.Located l = chain.get(i);
                AccessRule.check(who, groups, l.access(), need, l.path(), what);
            }
        }
    }

    /** Requests only the cluster's daemons and administrators may make. */
    public void superuserOnly(Identity who, Opcode op) {
        if (who != null && !who.superuser()) {
            throw new CreelException(ErrorCode.PERMISSION_DENIED, "identity " + who.name() + " may not send "
                    + op + ": only the cluster's daemons and administrators (the cluster secret) may");
        }
    }

    /** Serves SET_ACCESS and the credential requests. */
    public CompletableFuture<? extends Message> serve(Opcode op, ByteBuf body, Identity who) {
        if (!ownership.enforced()) {
            throw new CreelException(ErrorCode.UNSUPPORTED, op + ": this namenode enforces no permissions (set "
                    + "creel.security.secret.file to turn them on)");
        }
        return switch (op) {
            case SET_ACCESS -> setAccess(SetAccessRequest.decode(body), who);
            case CREDENTIAL_PUT -> {
                CredentialRecord r = CredentialRecord.decode(body);
                superuserOnly(who, op);
                Identity.checkName(r.name());
                r.groups().forEach(Identity::checkName);
                if (r.name().equals(Identity.SUPERUSER) || !r.id().matches("[0-9a-f]{32}")) {
                    throw new CreelException(ErrorCode.INVALID_ARGUMENT, "credential " + r.name() + " #" + r.id()
                            + ": the name must not be " + Identity.SUPERUSER + " and the id is 32 hex digits");
                }
                LOG.info("credential of identity {} issued (#{}, groups {})", r.name(), r.id(), r.groups());
                yield ownership.putCredential(r);
            }
            case CREDENTIAL_REVOKE -> {
                NameRequest r = NameRequest.decode(body);
                superuserOnly(who, op);
                yield ownership.revoke(r.name()).thenApply(was -> {
                    if (was == null) {
                        throw new CreelException(ErrorCode.NOT_FOUND, "identity " + r.name()
                                + " has no current credential at this namenode");
                    }
                    LOG.info("credential of identity {} revoked (#{})", was.name(), was.id());
                    return was;
                });
            }
            case CREDENTIAL_LIST -> {
                Empty.decode(body);
                superuserOnly(who, op);
                yield CompletableFuture.completedFuture(new CredentialList(ownership.credentials()));
            }
            default -> throw new IllegalArgumentException(op + " is not a permission request");
        };
    }

    private CompletableFuture<NodeReply> setAccess(SetAccessRequest r, Identity who) {
        NodeAccess a = ownership.ofPath(r.path());
        if (a != null && !who.superuser()) {
            check(who, r.path(), Need.READ, null, "change " + r.path()); // it must reach the node, as for any use
            if (!r.owner().isEmpty() && !r.owner().equals(a.owner())) {
                throw new CreelException(ErrorCode.PERMISSION_DENIED, "identity " + who.name() + " may not change "
                        + r.path() + "'s owner to " + r.owner() + ": only an administrator (the cluster secret) may");
            }
            if (!who.name().equals(a.owner())) {
                throw new CreelException(ErrorCode.PERMISSION_DENIED, "identity " + who.name() + " may not change "
                        + r.path() + "'s mode or group: only its owner " + a.owner() + " or an administrator may");
            }
            if (!r.group().isEmpty() && !r.group().equals(a.group()) && !groups(who).contains(r.group())) {
                throw new CreelException(ErrorCode.PERMISSION_DENIED, "identity " + who.name() + " may not give "
                        + r.path() + " to group " + r.group() + ": it is not in it (its groups: " + groups(who) + ")");
            }
        }
        return ownership.set(r.path(), r.owner(), r.group(), r.mode()).thenApply(NodeReply::new);
    }

    private List<String> groups(Identity who) {
        CredentialRecord r = ownership.credential(who.name());
        return r == null ? List.of() : r.groups();
    }

}
