package io.creel.storage.nvmf.nvme;

import java.nio.ByteBuffer;

/** Builds the admin, Fabrics and NVM I/O commands this initiator issues, field by field as the specifications lay them out. */
public final class NvmeCommands {
    /** Bytes of an Identify data structure. */
    public static final int IDENTIFY_LENGTH = 4096;
    /** Connect command attribute: disable SQ flow control (the controller then reports no SQ head). */
    public static final int CONNECT_DISABLE_SQ_FLOW = 0x04;

    private NvmeCommands() {
    }

    /** Identify Controller (CNS 01h) into a 4096-byte buffer. */
    public static NvmeCommand identifyController(ByteBuffer dst) {
        return identify(Opcodes.CNS_CONTROLLER, 0, dst);
    }

    /** Identify Namespace (CNS 00h) of {@code nsid} into a 4096-byte buffer. */
    public static NvmeCommand identifyNamespace(int nsid, ByteBuffer dst) {
        return identify(Opcodes.CNS_NAMESPACE, nsid, dst);
    }

    /** Active Namespace ID list (CNS 02h): up to 1024 active NSIDs greater than {@code afterNsid}. */
    public static NvmeCommand activeNamespaces(int afterNsid, ByteBuffer dst) {
        return identify(Opcodes.CNS_ACTIVE_NAMESPACES, afterNsid, dst);
    }

    private static NvmeCommand identify(int cns, int nsid, ByteBuffer dst) {
        requireLength(dst, IDENTIFY_LENGTH, "Identify");
        return NvmeCommand.withData(Opcodes.ADMIN_IDENTIFY, nsid, cns, 0, 0, 0, 0, 0,
                DataDirection.CONTROLLER_TO_HOST, dst);
    }

    /**
     * Set Features, Number of Queues: asks for {@code queues} I/O submission and completion queues.
     * The result's DW0 holds the numbers allocated, 0's based (NSQA in bits 15:0, NCQA in 31:16).
     */
    public static NvmeCommand setNumberOfQueues(int queues) {
        if (queues < 1 || queues > 65535) {
            throw new IllegalArgumentException("number of I/O queues must be 1..65535, not " + queues);
        }
        int zeroBased = queues - 1;
        return NvmeCommand.of(Opcodes.ADMIN_SET_FEATURES, 0, Opcodes.FEATURE_NUMBER_OF_QUEUES,
                zeroBased | zeroBased << 16, 0, 0, 0, 0);
    }

    public static NvmeCommand keepAlive() {
        return NvmeCommand.of(Opcodes.ADMIN_KEEP_ALIVE, 0, 0, 0, 0, 0, 0, 0);
    }

    /** Property Get of a 4-byte or 8-byte controller property at {@code offset} (CAP 0h, VS 8h, CC 14h, CSTS 1Ch). */
    public static NvmeCommand propertyGet(int offset, boolean eightBytes) {
        return NvmeCommand.of(Opcodes.FABRICS, Opcodes.FCTYPE_PROPERTY_GET, eightBytes ? 1 : 0, offset, 0, 0, 0, 0);
    }

    /** Property Set of a 4-byte or 8-byte controller property. */
    public static NvmeCommand propertySet(int offset, boolean eightBytes, long value) {
        return NvmeCommand.of(Opcodes.FABRICS, Opcodes.FCTYPE_PROPERTY_SET, eightBytes ? 1 : 0, offset,
                (int) value, (int) (value >>> 32), 0, 0);
    }

    /**
     * Fabrics Connect of queue {@code qid} with {@code entries} submission queue entries, carrying
     * the 1024-byte Connect data ({@link ConnectData}).
     *
     * @param attributes CATTR bits, e.g. {@link #CONNECT_DISABLE_SQ_FLOW}
     * @param keepAliveMillis KATO for the admin queue (0 = no keep alive); ignored for I/O queues
     */
    public static NvmeCommand connect(int qid, int entries, int attributes, int keepAliveMillis, ByteBuffer data) {
        if (entries < 2 || entries > 65536) {
            throw new IllegalArgumentException("queue entries must be 2..65536, not " + entries);
        }
        requireLength(data, ConnectData.LENGTH, "Connect data");
        return NvmeCommand.withData(Opcodes.FABRICS, Opcodes.FCTYPE_CONNECT, qid << 16,
                (entries - 1) | (attributes & 0xFF) << 16, keepAliveMillis, 0, 0, 0,
                DataDirection.HOST_TO_CONTROLLER, data);
    }

    /** Read of {@code blocks} logical blocks from {@code slba} into {@code dst} (one transfer, in order). */
    public static NvmeCommand read(int nsid, long slba, int blocks, ByteBuffer... dst) {
        checkBlocks(blocks);
        return NvmeCommand.withData(Opcodes.IO_READ, nsid, (int) slba, (int) (slba >>> 32), blocks - 1, 0, 0, 0,
                DataDirection.CONTROLLER_TO_HOST, dst);
    }

    /** Write of {@code blocks} logical blocks at {@code slba} from {@code src} (one transfer, in order). */
    public static NvmeCommand write(int nsid, long slba, int blocks, ByteBuffer... src) {
        checkBlocks(blocks);
        return NvmeCommand.withData(Opcodes.IO_WRITE, nsid, (int) slba, (int) (slba >>> 32), blocks - 1, 0, 0, 0,
                DataDirection.HOST_TO_CONTROLLER, src);
    }

    public static NvmeCommand flush(int nsid) {
        return NvmeCommand.of(Opcodes.IO_FLUSH, nsid, 0, 0, 0, 0, 0, 0);
    }

    private static void checkBlocks(int blocks) {
        if (blocks < 1 || blocks > 65536) {
            throw new IllegalArgumentException("a Read or Write moves 1..65536 logical blocks, not " + blocks);
        }
    }

    private static void requireLength(ByteBuffer b, int length, String what) {
        if (b.remaining() != length) {
            throw new IllegalArgumentException(what + " needs a buffer of exactly " + length + " bytes, not "
                    + b.remaining());
        }
    }
}
