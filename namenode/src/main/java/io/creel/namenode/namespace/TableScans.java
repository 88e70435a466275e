package io.creel.namenode.namespace;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.ScanReply;
import io.creel.common.protocol.ScanRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * SCAN: the keys of an ordered Table in order from a start key, each with its committed version
 * and, where the namenode keeps it inline, its value: a scan of small records is one request and
 * no data transfer. Runs under the namespace lock like a lookup, for at most
 * {@link ScanRequest#MAX_LIMIT} keys (a walk of the Table's {@link OrderedKeys} from the start key);
 * the reply is encoded after the lock is released (inline arrays are never changed in place).
 *
 * <p>A reply also stops at a byte budget (half a frame, 32 KiB to 1 MiB), so values kept inline
 * never make a frame too large; it always holds at least one key when one is there, and says
 * whether more follow.
 */
public final class TableScans {
    /** Bytes of a reply entry besides its name, value and placement strings: the node's fixed fields. */
    private static final int ENTRY_OVERHEAD = 48;

    private final Namespace namespace;
    private final int budget;

    /**
     * @param namespace the namespace whose Tables are scanned
     * @param maxFrame  the largest frame this namenode's clients accept ({@code CreelConf.maxFrameSize()})
     */
    public TableScans(Namespace namespace, int maxFrame) {
        this.namespace = namespace;
        this.budget = Math.max(32 << 10, Math.min(1 << 20, maxFrame / 2));
    }

    /** The KeyValues {@code req} asks for; INVALID_ARGUMENT unless its path is an ordered Table. */
    public ScanReply scan(ScanRequest req) {
        byte[] from = req.from().getBytes(StandardCharsets.UTF_8);
        if (!req.from().isEmpty()) {
            PathName.checkComponent(req.path() + "/" + req.from(), req.from());
        }
        synchronized (namespace) {
            Utf8Path path = Utf8Path.parse(req.path());
            Node n = namespace.nodes().resolve(path);
            if (n.type != NodeType.TABLE) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + " is a " + n.type.displayName()
                        + "; only the keys of a Table created ordered can be scanned");
            }
            Container table = (Container) n;
            if (!table.ordered()) {
                throw new CreelException(ErrorCode.INVALID_ARGUMENT, path + " is a Table that keeps no key order, "
                        + "so it cannot be scanned: create it ordered (CreateOptions.withOrdered, "
                        + "'creel fs mkdir --type table --ordered') to scan its keys");
            }
            List<ScanReply.Entry> out = new ArrayList<>(Math.min(req.limit(), 256));
            Iterator<Node> keys = table.orderedKeys().from(from, req.after());
            long bytes = 0;
            while (out.size() < req.limit() && keys.hasNext()) {
                Node k = keys.next();
                byte[] data = InlineValues.data(k);
                NodeInfo info = namespace.info(k); // with its owner and mode, for the permission check
                long size = ENTRY_OVERHEAD + k.name.length + (data == null ? 0 : data.length)
                        + 3L * (info.storageClass().length() + info.locationClass().length());
                if (!out.isEmpty() && bytes + size > budget) {
                    return new ScanReply(out, true);
                }
                bytes += size;
                out.add(new ScanReply.Entry(k.nameString(), info, data));
            }
            return new ScanReply(out, keys.hasNext());
        }
    }
}
