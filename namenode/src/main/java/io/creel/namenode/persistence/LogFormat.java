package io.creel.namenode.persistence;

/**
 * The namenode's log and checkpoint files. Both are sequences of framed records:
 *
 * <pre>
 *   int32  length of the body (type byte included)
 *   int32  CRC32C of the body
 *   u8     record type
 *   ...    fields (big-endian; strings as u16 length + UTF-8)
 * </pre>
 *
 * <p>{@code checkpoint-N} holds the whole namespace as of the start of log segment {@code log-N}:
 * a {@link #HEAD}, then the nodes as {@link #CREATED}/{@link #BLOCK}/{@link #LENGTH}/{@link #INLINE} records
 * (parents first, each expiring one followed by its {@link #OWNED}, each ordered Table by its {@link #ORDERED}), then the remembered answers ({@link #ANSWER}), then {@link #IMAGE_END}. {@code log-N} holds the changes after it, in order.
 * Both start their own numbering of {@link #SERVER} records. N is written as 20 decimal digits.
 *
 * <p>Every file begins with a {@link #FORMAT} record naming the format version it is written in
 * ({@link #VERSION}). A file without one was written before versions existed and is version 1. A
 * namenode refuses a file of a version newer than its own, naming both, instead of misreading it.
 */
final class LogFormat {
    /** Bytes before a record's body: length and checksum. */
    static final int FRAME_HEADER = 8;
    /** No record is larger; a length beyond it is corruption. */
    static final int MAX_BODY = 1 << 20;

    /** segment, root id, last node id, largest tag so far. */
    static final int HEAD = 1;
    /** records in the image (for a completeness check). */
    static final int IMAGE_END = 2;
    /** server number, StorageServerInfo as on the wire (server id 0). */
    static final int SERVER = 3;
    /** id, type, name, parent id, storage class, location class, enumerable, pending, slot, modified. */
    static final int CREATED = 4;
    /** node id, block index, server number, block number, tag. */
    static final int BLOCK = 5;
    /** node id, blocks kept. */
    static final int TRIMMED = 6;
    /** node id, length, modified. */
    static final int LENGTH = 7;
    /** version id, slot, modified. */
    static final int PUBLISHED = 8;
    /** node id. */
    static final int REMOVED = 9;
    /** node id, new parent id, name, slot, modified. */
    static final int MOVED = 10;
    /** node id, modified, content (int length, bytes): the node's committed bytes, kept inline. */
    static final int INLINE = 11;
    /**
     * client id (two int64), sequence, opcode (u8), answered at (ms), reply (int length, bytes): an
     * identified request's answer, after the records of the change it made (in a checkpoint: the
     * answers still remembered, after the nodes).
     */
    static final int ANSWER = 12;
    /** client id (two int64), sequence: the answer logged for that request is void (its change was undone). */
    static final int ANSWER_WITHDRAWN = 13;

    /** u16 format version: the first record of every file written since versions exist. */
    static final int FORMAT = 14;
    /**
     * node id, block index, count (u8), then count times server number, block number and tag: the other
     * copies of the block the {@link #BLOCK} record just before it describes (since version 2).
     */
    static final int COPIES = 15;
    /**
     * node id, replication (u8): the factor set on the node the {@link #CREATED} record just before
     * it created (since version 2; a node without one inherits).
     */
    static final int REPLICATION = 16;
    /**
     * node id, owner client id (two int64), grace (int64 ms; -1: the session timeout, 0: no longer
     * expires): who owns an expiring node from now on (a create's, after its CREATED record, or a
     * hand-over); in a checkpoint, after the node's own records. Heartbeats are not logged (since
     * version 2).
     */
    static final int OWNED = 17;
    /**
     * node id: the Table the {@link #CREATED} record before it created keeps its keys in order (an
     * ordered Table, scannable); in a checkpoint, after the Table's own records (since version 3).
     */
    static final int ORDERED = 18;
    /**
     * node id, owner, group (strings), mode (u16): the node's owner, group and mode from now on (a
     * create's, after its CREATED record, or a chmod/chown); in a checkpoint, after the node's own
     * records (the root's after its blocks). Only a namenode enforcing permissions writes them
     * (since version 4).
     */
    static final int ACCESS = 19;
    /**
     * name, id (strings), group count (u8) and groups, created (int64 ms): identity name's current
     * credential (in a checkpoint, every current one, after the root) (since version 4).
     */
    static final int CREDENTIAL = 20;
    /** name: the identity's credential was revoked (since version 4). */
    static final int CREDENTIAL_REVOKED = 21;
    /**
     * The format this release writes and the newest it reads. Raise it when a record changes meaning
     * or layout; readers keep reading older versions (a file with no FORMAT record is version 1).
     */
    static final int VERSION = 4;

    static final String LOG_PREFIX = "log-";
    static final String CHECKPOINT_PREFIX = "checkpoint-";
    static final String LOCK_FILE = "namenode.lock";

    private LogFormat() {
    }

    static String logName(long segment) {
        return LOG_PREFIX + String.format("%020d", segment);
    }

    static String checkpointName(long segment) {
        return CHECKPOINT_PREFIX + String.format("%020d", segment);
    }

    /** The segment number of a log or checkpoint file name, or -1 for other names. */
    static long segmentOf(String fileName, String prefix) {
        if (!fileName.startsWith(prefix) || fileName.length() != prefix.length() + 20) {
            return -1;
        }
        try {
            return Long.parseLong(fileName.substring(prefix.length()));
        } catch (NumberFormatException e) {
            return -1;
        }
    }
}
