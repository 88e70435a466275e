package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.CredentialRecord;
import io.creel.common.protocol.NodeAccess;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.security.Identity;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Who owns each node and who is who, as the namespace keeps and logs them: every node's owner,
 * group and mode ({@link NodeAccess}), and the named credentials that are current. Who may do what
 * with that is {@code io.creel.namenode.security}'s rule; this class only holds, stamps, changes,
 * persists and describes.
 *
 * <p>Off (the default, a namenode without a cluster secret) it stamps nothing and describes
 * nothing: the namespace behaves and logs exactly as before. On ({@link #enforce}), a node created
 * while a request runs {@link #as} an identity is owned by it, in its parent's group, with its
 * parent's mode less the umask (its owner may always read and write it; a File or KeyValue gets no
 * execute bit). A node never stamped — the root, and every node of a namespace written before
 * permissions — belongs to {@link Identity#SUPERUSER} with mode 0777, so old clusters keep working.
 *
 * <p>A node's access is one {@code long} on the node (no side table to clean up when it leaves):
 * a flag, the owner's and the group's indexes in this class's name table, and the mode.
 */
public final class Ownership {
    /** What a node that was never stamped shows. */
    public static final NodeAccess UNSTAMPED = new NodeAccess(Identity.SUPERUSER, Identity.SUPERUSER, NodeAccess.ALL);
    private static final long STAMPED = 1L << 62;
    private static final int NAME_BITS = 24;
    /** The identity the current thread's request runs as (see {@link #as}). */
    private static final ThreadLocal<String> CREATOR = new ThreadLocal<>();

    private final Namespace ns;
    private final List<String> names = new ArrayList<>(List.of(Identity.SUPERUSER));
    private final Map<String, Integer> index = new HashMap<>(Map.of(Identity.SUPERUSER, 0));
    /** Read by every request's check without the namespace lock. */
    private final Map<String, CredentialRecord> credentials = new ConcurrentHashMap<>();
    private volatile boolean enforced;
    private volatile int umask = 022;

    Ownership(Namespace ns) {
        this.ns = ns;
    }

    /** Turns ownership on with {@code umask} (0 to 0777); set before the namespace serves. */
    public void enforce(int umask) {
        if (umask < 0 || umask > NodeAccess.ALL) {
            throw new IllegalArgumentException("umask " + Integer.toOctalString(umask) + " is beyond 0777");
        }
        this.umask = umask;
        this.enforced = true;
    }

    /** Whether nodes get owners and permissions are enforced. */
    public boolean enforced() {
        return enforced;
    }

    /** Runs {@code op} (a namespace call) so that the nodes it creates belong to {@code who}. */
    public <T> T as(Identity who, Supplier<T> op) {
        String before = CREATOR.get();
        CREATOR.set(who.name());
        try {
            return op.get();
        } finally {
            if (before == null) {
                CREATOR.remove();
            } else {
                CREATOR.set(before);
            }
        }
    }

    // ------------------------------------------------------------------ nodes

    /** A node on the way to another: its path and access. */
    public record Located(String path, NodeAccess access) {
    }

    /**
     * The nodes from the root down to the node at {@code pathText}, the root first: one per component
     * that exists (so the list is shorter when the node or an ancestor is missing; the operation
     * itself then says what is missing).
     */
    public List<Located> chain(String pathText) {
        Utf8Path path = Utf8Path.parse(pathText);
        List<Located> out = new ArrayList<>(path.depth() + 1);
        synchronized (ns) {
            for (int depth = 0; depth <= path.depth(); depth++) {
                Node n;
                try {
                    n = ns.nodes().resolve(path, depth);
                } catch (CreelException e) {
                    break; // not there, or through a File
                }
                out.add(new Located(depth == 0 ? "/" : path.prefix(depth), access(n)));
            }
        }
        return out;
    }

    /** {@link #chain} of the node with id {@code nodeId} (as it was, if retired); empty when the id is unknown. */
    public List<Located> chainOf(long nodeId) {
        synchronized (ns) {
            Node n = ns.nodes().get(nodeId);
            List<Located> out = new ArrayList<>();
            for (Node x = n; x != null; x = x.parent) {
                out.add(0, new Located(x.path(), access(x)));
            }
            return out;
        }
    }

    /** The access of the node at {@code pathText}, or {@code null} when there is none. */
    public NodeAccess ofPath(String pathText) {
        List<Located> c = chain(pathText);
        return c.size() == Utf8Path.parse(pathText).depth() + 1 ? c.get(c.size() - 1).access() : null;
    }

    /**
     * Sets the node at {@code pathText}'s owner (unless "") and group (unless "") and mode (unless
     * negative); completes with the node once the change is durable.
     */
    public CompletableFuture<NodeInfo> set(String pathText, String owner, String group, int mode) {
        try {
            synchronized (ns) {
                Node n = ns.nodes().resolve(Utf8Path.parse(pathText));
                NodeAccess was = access(n);
                NodeAccess now = new NodeAccess(owner.isEmpty() ? was.owner() : Identity.checkName(owner),
                        group.isEmpty() ? was.group() : Identity.checkName(group), mode < 0 ? was.mode() : mode);
                n.access = pack(now);
                ns.log().access(n.id, now.owner(), now.group(), now.mode());
                return ns.log().durable(CompletableFuture.completedFuture(ns.info(n)), ns.log().position());
            }
        } catch (CreelException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@code info} with {@code n}'s access when ownership is on. Under the namespace lock. */
    NodeInfo describe(Node n, NodeInfo info) {
        return enforced ? info.withAccess(access(n)) : info;
    }

    /** A new node (just logged as created): owned by the request's identity, if ownership is on. */
    void stamp(Node n) {
        String who = CREATOR.get();
        if (!enforced || who == null || n.parent == null) {
            return;
        }
        NodeAccess parent = access(n.parent);
        int mode = (parent.mode() & ~umask) | 0600;
        if (!n.type.isContainer()) {
            mode &= 0666; // data is read or written, never run
        }
        NodeAccess a = new NodeAccess(who, parent.group(), mode);
        n.access = pack(a);
        ns.log().access(n.id, a.owner(), a.group(), a.mode());
    }

    /** After a restart: node {@code n}'s logged access. */
    void restore(Node n, String owner, String group, int mode) {
        n.access = pack(new NodeAccess(owner, group, mode));
    }

    /** For a checkpoint: {@code n}'s access, if it was ever stamped. */
    void describeTo(Node n, NamespaceLog sink) {
        if (n.access != 0) {
            NodeAccess a = access(n);
            sink.access(n.id, a.owner(), a.group(), a.mode());
        }
    }

    private NodeAccess access(Node n) {
        long a = n.access;
        if (a == 0) {
            return UNSTAMPED;
        }
        int mask = (1 << NAME_BITS) - 1;
        return new NodeAccess(names.get((int) (a >>> 36) & mask), names.get((int) (a >>> 12) & mask),
                (int) a & 07777);
    }

    private long pack(NodeAccess a) {
        return STAMPED | ((long) intern(a.owner()) << 36) | ((long) intern(a.group()) << 12) | a.mode();
    }

    private int intern(String name) {
        Integer i = index.get(name);
        if (i == null) {
            if (names.size() >= 1 << NAME_BITS) {
                throw new CreelException(ErrorCode.LIMIT_EXCEEDED, "this namenode knows " + names.size()
                        + " owner and group names, the most it can");
            }
            i = names.size();
            names.add(name);
            index.put(name, i);
        }
        return i;
    }

    // ------------------------------------------------------------------ credentials

    /** The current credential of identity {@code name}, or {@code null}. Lock-free. */
    public CredentialRecord credential(String name) {
        return credentials.get(name);
    }

    /** Every current credential, by name. */
    public List<CredentialRecord> credentials() {
        List<CredentialRecord> all = new ArrayList<>(credentials.values());
        all.sort(Comparator.comparing(CredentialRecord::name));
        return all;
    }

    /** Makes {@code r} its identity's current credential (replacing an earlier one); completes once durable. */
    public CompletableFuture<CredentialRecord> putCredential(CredentialRecord r) {
        synchronized (ns) {
            credentials.put(r.name(), r);
            ns.log().credential(r.name(), r.id(), r.groups(), r.createdMillis());
            return ns.log().durable(CompletableFuture.completedFuture(r), ns.log().position());
        }
    }

    /** Revokes identity {@code name}'s credential; completes once durable with what was revoked, or null if none. */
    public CompletableFuture<CredentialRecord> revoke(String name) {
        synchronized (ns) {
            CredentialRecord was = credentials.remove(name);
            if (was == null) {
                return CompletableFuture.completedFuture(null);
            }
            ns.log().revoked(name);
            return ns.log().durable(CompletableFuture.completedFuture(was), ns.log().position());
        }
    }

    /** After a restart: a logged credential or revocation. */
    void restoreCredential(CredentialRecord r) {
        credentials.put(r.name(), r);
    }

    void restoreRevoked(String name) {
        credentials.remove(name);
    }

    /** For a checkpoint: every current credential. */
    void describeCredentials(NamespaceLog sink) {
        for (CredentialRecord r : credentials()) {
            sink.credential(r.name(), r.id(), r.groups(), r.createdMillis());
        }
    }
}
