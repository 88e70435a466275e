package io.creel.namenode.persistence;

import io.creel.common.BuildInfo;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.Utf8Path;
import io.creel.common.protocol.Opcode;
import io.creel.common.protocol.ProtocolException;
import io.creel.common.protocol.RequestIdentity;
import io.creel.common.protocol.StorageServerInfo;
import io.creel.common.protocol.Wire;
import io.creel.namenode.allocation.AllocatedBlock;
import io.creel.namenode.namespace.NamespaceImage;
import io.creel.namenode.retry.LoggedAnswer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one log or checkpoint file and applies its records to a {@link NamespaceImage.Rebuilder}.
 * A record cut short or garbled at the very end of the last log segment is a torn append (never
 * acknowledged) and is ignored; anything else that does not read back is an error naming the file
 * and offset.
 */
final class LogReader {
    private static final Logger LOG = LoggerFactory.getLogger(LogReader.class);

    /** What one file held. */
    record Result(long records, long validBytes, long tornBytes, long head, boolean complete, long maxTag) {
    }

    private final Path file;
    private final NamespaceImage.Rebuilder target;
    /** The node the last CREATED record created, which a REPLICATION or ORDERED record completes. */
    private long lastCreated = -1;
    /** The last BLOCK record read, which a COPIES record completes. */
    private long lastBlockNode = -1;
    private int lastBlockIndex = -1;
    private AllocatedBlock lastBlock;
    private final RecentAnswers answers;
    private final Map<Integer, StorageServerInfo> servers = new HashMap<>();
    private long maxTag;
    private long head = -1;
    private boolean complete;

    private LogReader(Path file, NamespaceImage.Rebuilder target, RecentAnswers answers) {
        this.file = file;
        this.target = target;
        this.answers = answers;
    }

    /**
     * Applies every record of {@code file}.
     *
     * @param tornTailAllowed whether this is the last log segment, whose end may be a torn append
     */
    static Result read(Path file, NamespaceImage.Rebuilder target, boolean tornTailAllowed) throws IOException {
        return read(file, target, new RecentAnswers(1, 1), tornTailAllowed);
    }

    /** {@link #read(Path, NamespaceImage.Rebuilder, boolean)}, adding the answers it holds to {@code answers}. */
    static Result read(Path file, NamespaceImage.Rebuilder target, RecentAnswers answers,
                       boolean tornTailAllowed) throws IOException {
        return new LogReader(file, target, answers).run(Files.readAllBytes(file), tornTailAllowed);
    }

    private Result run(byte[] bytes, boolean tornTailAllowed) {
        ByteBuf all = Unpooled.wrappedBuffer(bytes);
        CRC32C crc = new CRC32C();
        int pos = 0;
        long records = 0;
        while (pos < bytes.length) {
            String problem = null;
            int length = 0;
            if (bytes.length - pos < LogFormat.FRAME_HEADER) {
                problem = "a record header cut short";
            } else {
                length = all.getInt(pos);
                if (length < 1 || length > LogFormat.MAX_BODY) {
                    problem = "an impossible record length " + length;
                } else if ((long) pos + LogFormat.FRAME_HEADER + length > bytes.length) {
                    problem = "a record cut short";
                } else {
                    crc.reset();
                    crc.update(bytes, pos + LogFormat.FRAME_HEADER, length);
                    if ((int) crc.getValue() != all.getInt(pos + 4)) {
                        problem = "a checksum mismatch";
                    }
                }
            }
            if (problem != null) {
                if (tornTailAllowed && isTail(bytes, pos, length)) {
                    LOG.warn("{}: ignoring a torn record at offset {} ({}, {} bytes): it was never acknowledged",
                            file, pos, problem, bytes.length - pos);
                    return new Result(records, pos, bytes.length - pos, head, complete, maxTag);
                }
                throw corrupt(pos, problem);
            }
            ByteBuf body = all.slice(pos + LogFormat.FRAME_HEADER, length);
            if (body.getUnsignedByte(0) == LogFormat.FORMAT) {
                // Not a change to the namespace: checked, not counted among the records.
                checkFormat(body, pos);
                pos += LogFormat.FRAME_HEADER + length;
                continue;
            }
            try {
                apply(body);
                if (body.isReadable()) {
                    throw new ProtocolException(body.readableBytes() + " bytes left over");
                }
            } catch (IllegalStateException | IllegalArgumentException | CreelException e) {
                throw corrupt(pos, e.getMessage());
            }
            records++;
            pos += LogFormat.FRAME_HEADER + length;
        }
        return new Result(records, pos, 0, head, complete, maxTag);
    }

    /**
     * The file's format version: only as its first record, and no newer than this release reads. A
     * newer one is refused naming both versions, not read as corruption.
     */
    private void checkFormat(ByteBuf body, int pos) {
        if (pos != 0 || body.readableBytes() != 3) {
            throw corrupt(pos, pos != 0 ? "a format record that is not the file's first" : "a format record of "
                    + body.readableBytes() + " bytes");
        }
        int version = body.getUnsignedShort(1);
        if (version > LogFormat.VERSION || version < 1) {
            throw new CreelException(ErrorCode.CONFIGURATION, "namenode log " + file + " is in format version "
                    + version + ", and this namenode (Creel " + BuildInfo.current().version() + ") reads versions 1 to "
                    + LogFormat.VERSION + ": start the release that wrote it, or move the log directory away to start "
                    + "empty");
        }
    }

    /** A bad record is a torn tail when it reaches the end of the file or only zeros follow it. */
    private static boolean isTail(byte[] bytes, int pos, int length) {
        if (bytes.length - pos < LogFormat.FRAME_HEADER
                || (long) pos + LogFormat.FRAME_HEADER + Math.max(length, 0) >= bytes.length) {
            return true;
        }
        for (int i = pos; i < bytes.length; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
    }

    private CreelException corrupt(int pos, String problem) {
        return new CreelException(ErrorCode.CONFIGURATION, "namenode log " + file + " is corrupt at offset " + pos
                + ": " + problem + "; the namespace cannot be restored past it (move the log directory away to "
                + "start empty)");
    }

    /** A name as written by {@link RecordEncoder}: checked against the naming rules, kept as UTF-8. */
    private static byte[] readName(ByteBuf in) {
        int len = Wire.readUnsignedShort(in, "name");
        Wire.need(in, len, "name");
        byte[] name = new byte[len];
        in.readBytes(name);
        Utf8Path p = Utf8Path.parse(withSlash(name));
        if (p.depth() != 1) {
            throw new IllegalStateException("a name that is not one path component");
        }
        return name;
    }

    private static byte[] withSlash(byte[] name) {
        byte[] p = new byte[name.length + 1];
        p[0] = '/';
        System.arraycopy(name, 0, p, 1, name.length);
        return p;
    }

    private void apply(ByteBuf in) {
        int type = Wire.readByte(in, "record type");
        if (complete) {
            throw new IllegalStateException("a record after the end of the image");
        }
        switch (type) {
            case LogFormat.HEAD -> {
                head = Wire.readLong(in, "segment");
                long rootId = Wire.readLong(in, "root id");
                long lastId = Wire.readLong(in, "last id");
                maxTag = Wire.readLong(in, "max tag");
                target.head(rootId, lastId);
            }
            case LogFormat.IMAGE_END -> {
                Wire.readLong(in, "record count");
                complete = true;
            }
            case LogFormat.SERVER -> {
                int ref = Wire.readInt(in, "server number");
                servers.put(ref, StorageServerInfo.decode(in));
            }
            case LogFormat.CREATED -> {
                long id = Wire.readLong(in, "id");
                NodeType t = NodeType.ofCode(Wire.readByte(in, "node type"));
                byte[] name = readName(in);
                long parent = Wire.readLong(in, "parent id");
                String sc = Wire.readString(in, "storage class");
                String lc = Wire.readString(in, "location class");
                boolean enumerable = Wire.readBoolean(in, "enumerable");
                boolean pending = Wire.readBoolean(in, "pending");
                int slot = Wire.readInt(in, "slot");
                long modified = Wire.readLong(in, "modified");
                target.created(id, t, name, parent, sc, lc, 0, enumerable, pending, slot, modified);
                lastCreated = id;
            }
            case LogFormat.REPLICATION -> {
                long id = Wire.readLong(in, "node id");
                int replication = Wire.readByte(in, "replication");
                if (id != lastCreated) {
                    throw new IllegalStateException("the replication of node " + id
                            + " without its created record before it");
                }
                if (replication < 1 || replication > io.creel.common.protocol.BlockLocation.MAX_COPIES) {
                    throw new IllegalStateException("replication " + replication + " of node " + id);
                }
                target.replication(id, replication);
            }
            case LogFormat.BLOCK -> {
                long node = Wire.readLong(in, "node id");
                int index = Wire.readInt(in, "block index");
                int ref = Wire.readInt(in, "server number");
                long number = Wire.readLong(in, "block number");
                long tag = Wire.readLong(in, "tag");
                StorageServerInfo s = servers.get(ref);
                if (s == null) {
                    throw new IllegalStateException("block of server number " + ref + ", which this file never named");
                }
                if (number < 0 || number >= s.blockCount()) {
                    throw new IllegalStateException("block " + number + " beyond the " + s.blockCount()
                            + " blocks of " + s.address());
                }
                if (Long.compareUnsigned(tag, maxTag) > 0) {
                    maxTag = tag;
                }
                lastBlockNode = node;
                lastBlockIndex = index;
                lastBlock = new AllocatedBlock(s, number, tag);
                target.block(node, index, lastBlock);
            }
            case LogFormat.COPIES -> {
                long node = Wire.readLong(in, "node id");
                int index = Wire.readInt(in, "block index");
                int count = Wire.readByte(in, "copies");
                if (lastBlock == null || node != lastBlockNode || index != lastBlockIndex) {
                    throw new IllegalStateException("copies of block " + index + " of node " + node
                            + " without the block record before them");
                }
                if (count < 1 || count >= io.creel.common.protocol.BlockLocation.MAX_COPIES) {
                    throw new IllegalStateException(count + " other copies of block " + index + " of node " + node);
                }
                java.util.List<io.creel.common.protocol.BlockCopy> others = new java.util.ArrayList<>();
                for (int i = 0; i < count; i++) {
                    int ref = Wire.readInt(in, "server number");
                    long number = Wire.readLong(in, "block number");
                    long copyTag = Wire.readLong(in, "tag");
                    if (Long.compareUnsigned(copyTag, maxTag) > 0) {
                        maxTag = copyTag;
                    }
                    StorageServerInfo s = servers.get(ref);
                    if (s == null) {
                        throw new IllegalStateException("copy on server number " + ref + ", which this file never named");
                    }
                    if (number < 0 || number >= s.blockCount()) {
                        throw new IllegalStateException("block " + number + " beyond the " + s.blockCount()
                                + " blocks of " + s.address());
                    }
                    others.add(new io.creel.common.protocol.BlockCopy(s, number, copyTag));
                }
                lastBlock = new AllocatedBlock(lastBlock.server(), lastBlock.blockNumber(), lastBlock.tag(), others);
                target.block(node, index, lastBlock); // the block's record again, now with every copy
            }
            case LogFormat.TRIMMED -> target.trimmed(Wire.readLong(in, "node id"), Wire.readInt(in, "kept"));
            case LogFormat.LENGTH -> target.length(Wire.readLong(in, "node id"), Wire.readNonNegativeLong(in, "length"),
                    Wire.readLong(in, "modified"));
            case LogFormat.INLINE -> {
                long node = Wire.readLong(in, "node id");
                long modified = Wire.readLong(in, "modified");
                byte[] data = Wire.readOptionalBytes(in, "inline content");
                if (data == null) {
                    throw new IllegalStateException("an inline record without content");
                }
                target.inline(node, data, modified);
            }
            case LogFormat.PUBLISHED -> target.published(Wire.readLong(in, "version id"), Wire.readInt(in, "slot"),
                    Wire.readLong(in, "modified"));
            case LogFormat.REMOVED -> target.removed(Wire.readLong(in, "node id"));
            case LogFormat.MOVED -> {
                long node = Wire.readLong(in, "node id");
                long parent = Wire.readLong(in, "new parent id");
                byte[] name = readName(in);
                target.moved(node, parent, name, Wire.readInt(in, "slot"), Wire.readLong(in, "modified"));
            }
            case LogFormat.ORDERED -> {
                long id = Wire.readLong(in, "node id");
                if (id != lastCreated) {
                    throw new IllegalStateException("node " + id + " keeps its keys in order without its created "
                            + "record before it");
                }
                target.ordered(id);
            }
            case LogFormat.OWNED -> target.owned(Wire.readLong(in, "node id"), Wire.readLong(in, "owner"),
                    Wire.readLong(in, "owner"), Wire.readLong(in, "grace"));
            case LogFormat.ACCESS -> {
                long node = Wire.readLong(in, "node id");
                String owner = Wire.readString(in, "owner");
                String group = Wire.readString(in, "group");
                int mode = Wire.readUnsignedShort(in, "mode");
                if (mode > io.creel.common.protocol.NodeAccess.ALL || owner.isEmpty() || group.isEmpty()) {
                    throw new IllegalStateException("node " + node + " owned by '" + owner + "', group '" + group
                            + "', mode " + Integer.toOctalString(mode));
                }
                target.access(node, owner, group, mode);
            }
            case LogFormat.CREDENTIAL -> {
                String name = Wire.readString(in, "credential name");
                String id = Wire.readString(in, "credential id");
                int n = Wire.readByte(in, "groups") & 0xff;
                java.util.List<String> groups = new java.util.ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    groups.add(Wire.readString(in, "group"));
                }
                if (name.isEmpty() || id.isEmpty()) {
                    throw new IllegalStateException("a credential without a name or id");
                }
                target.credential(name, id, groups, Wire.readLong(in, "created"));
            }
            case LogFormat.CREDENTIAL_REVOKED -> target.revoked(Wire.readString(in, "credential name"));
            case LogFormat.ANSWER -> {
                RequestIdentity id = RequestIdentity.decode(in);
                int code = Wire.readByte(in, "opcode") & 0xff;
                Opcode op = Opcode.ofCode(code);
                if (op == null) {
                    throw new IllegalStateException("an answer to unknown opcode " + code);
                }
                long at = Wire.readLong(in, "answered at");
                byte[] reply = Wire.readOptionalBytes(in, "reply");
                if (reply == null) {
                    throw new IllegalStateException("an answer without a reply");
                }
                answers.add(new LoggedAnswer(id, op, reply, at));
            }
            case LogFormat.ANSWER_WITHDRAWN -> answers.withdraw(RequestIdentity.decode(in));
            default -> throw new IllegalStateException("unknown record type " + type);
        }
    }
}
