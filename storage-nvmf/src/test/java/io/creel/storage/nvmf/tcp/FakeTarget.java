package io.creel.storage.nvmf.tcp;

import io.creel.storage.nvmf.nvme.CompletionEntry;
import io.creel.storage.nvmf.nvme.ConnectData;
import io.creel.storage.nvmf.nvme.ControllerRegisters;
import io.creel.storage.nvmf.nvme.NvmeStatus;
import io.creel.storage.nvmf.nvme.Opcodes;
import io.creel.storage.nvmf.nvme.SubmissionEntry;
import io.creel.storage.nvmf.tcp.pdu.CapsuleResponsePdu;
import io.creel.storage.nvmf.tcp.pdu.CommonHeader;
import io.creel.storage.nvmf.tcp.pdu.DataPdu;
import io.creel.storage.nvmf.tcp.pdu.FatalErrorStatus;
import io.creel.storage.nvmf.tcp.pdu.IcReqPdu;
import io.creel.storage.nvmf.tcp.pdu.IcRespPdu;
import io.creel.storage.nvmf.tcp.pdu.PduDigest;
import io.creel.storage.nvmf.tcp.pdu.PduException;
import io.creel.storage.nvmf.tcp.pdu.PduReader;
import io.creel.storage.nvmf.tcp.pdu.PduType;
import io.creel.storage.nvmf.tcp.pdu.R2tPdu;
import io.creel.storage.nvmf.tcp.pdu.TermReqPdu;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An NVMe/TCP controller for tests, on Netty over loopback: one subsystem with one namespace kept in
 * memory, enough of the admin and Fabrics command set for {@link NvmeTcpController#connect}, Read,
 * Write (in-capsule or through R2T/H2CData) and Flush, digests, and hooks that make it misbehave: stall,
 * drop the connection, answer with an error status, corrupt a digest, or send raw bytes.
 */
public final class FakeTarget implements AutoCloseable {
    public static final String NQN = "nqn.2024-01.io.creel:fake";

    /** What the target does with a command it received; {@link #NORMAL} unless a hook says otherwise. */
    public sealed interface Action permits Normal, Stall, Drop, Fail, Raw, CorruptHeaderDigest, CorruptDataDigest {
    }

    public record Normal() implements Action {
    }

    /** Never answer. */
    public record Stall() implements Action {
    }

    /** Close the connection instead of answering. */
    public record Drop() implements Action {
    }

    /** Complete with this status. */
    public record Fail(int sct, int sc) implements Action {
    }

    /** Send these bytes instead of the answer (for malformed PDUs). */
    record Raw(byte[] bytes) implements Action {
    }

    /** Answer normally, but with a wrong header digest on the first PDU sent. */
    record CorruptHeaderDigest() implements Action {
    }

    /** Answer normally, but with a wrong data digest on the C2HData. */
    record CorruptDataDigest() implements Action {
    }

    public static final Action NORMAL = new Normal();

    /** A received command, as a hook sees it. */
    public record Command(int qid, int opcode, int fctype, int cid, int nsid, long slba, int blocks) {
    }

    /** Decides what to do with each command. */
    public interface Hook {
        Action on(Command c);
    }

    final int sectorSize;
    final long sectors;
    private final ByteBuffer storage;
    private final EventLoopGroup group;
    private final Channel server;
    private final Set<Channel> connections = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nextCntlid = new AtomicInteger(1);
    private final Map<Integer, Long> controllerKato = new ConcurrentHashMap<>();

    // configuration (set before connecting)
    volatile int mdts;
    volatile long maxH2cData = 64 * 1024;
    volatile int inCapsuleBytes = 8192;
    volatile int cpda;
    volatile int c2hChunk = Integer.MAX_VALUE;
    volatile int r2tChunk = Integer.MAX_VALUE;
    volatile int grantedQueues = 64;
    volatile int mqes = 1023;
    /** Answer ICReq with these digest bits instead of the ones asked for (-1 = as asked). */
    volatile int icRespDigestOverride = -1;
    /** Controller never becomes ready after CC.EN. */
    volatile boolean neverReady;
    public volatile Hook hook = c -> NORMAL;

    // what happened
    public final AtomicInteger reads = new AtomicInteger();
    public final AtomicInteger writes = new AtomicInteger();
    final AtomicInteger inCapsuleWrites = new AtomicInteger();
    final AtomicInteger r2tWrites = new AtomicInteger();
    final AtomicInteger keepAlives = new AtomicInteger();
    final AtomicInteger flushes = new AtomicInteger();
    final AtomicInteger ioConnects = new AtomicInteger();
    final AtomicInteger dataDigestErrors = new AtomicInteger();
    final AtomicInteger shutdowns = new AtomicInteger();
    final List<String> termReqs = new CopyOnWriteArrayList<>();
    final List<String> hostNqns = new CopyOnWriteArrayList<>();
    final List<Integer> sqFlowDisabledQueues = new CopyOnWriteArrayList<>();
    volatile long lastKato = -1;

    public FakeTarget(int sectorSize, long sectors) throws InterruptedException {
        this.sectorSize = sectorSize;
        this.sectors = sectors;
        this.storage = ByteBuffer.allocate(Math.toIntExact(sectors * sectorSize));
        this.group = new MultiThreadIoEventLoopGroup(2, new DefaultThreadFactory("fake-target", true),
                NioIoHandler.newFactory());
        this.server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        connections.add(ch);
                        ch.closeFuture().addListener(f -> connections.remove(ch));
                        ch.pipeline().addLast(new Connection());
                    }
                }).bind("127.0.0.1", 0).sync().channel();
    }

    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    public NvmeTcpEndpoint endpoint() {
        return new NvmeTcpEndpoint("127.0.0.1", port(), NQN);
    }

    /** Bytes of the namespace, copied. */
    public byte[] contents(long offset, int length) {
        byte[] out = new byte[length];
        synchronized (storage) {
            storage.get((int) offset, out);
        }
        return out;
    }

    public void fill(long offset, byte[] bytes) {
        synchronized (storage) {
            storage.put((int) offset, bytes);
        }
    }

    /** Closes every connection at once: the target "disappears". */
    public void dropAllConnections() {
        connections.forEach(Channel::close);
    }

    public int openConnections() {
        return connections.size();
    }

    @Override
    public void close() {
        server.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        connections.forEach(Channel::close);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Controller registers per controller ID. */
    private final Map<Integer, int[]> registers = new ConcurrentHashMap<>();

    private final class Connection extends ChannelInboundHandlerAdapter implements PduReader.Handler {
        private final PduReader reader = new PduReader(PduReader.Role.CONTROLLER, 64L << 20, this);
        private final PduDigest digest = new PduDigest();
        private final SubmissionEntry sqe = new SubmissionEntry();
        private final CompletionEntry cqe = new CompletionEntry();
        private final Map<Integer, PendingWrite> pendingWrites = new HashMap<>();
        private ChannelHandlerContext ctx;
        private boolean ic;
        private boolean hd;
        private boolean dd;
        private int qid = -1;
        private int cntlid;
        private int entries = 32;
        private int sqHead;
        private boolean sqFlowDisabled;
        private ByteBuf capsuleHeader;
        private ByteBuffer inbound;
        private int inboundAt;
        private PendingWrite h2cTarget;
        private long h2cOffset;
        private Action pendingCorruption = NORMAL;

        private final class PendingWrite {
            final Command command;
            final ByteBuffer data;
            long received;
            long solicited;

            PendingWrite(Command command, int length) {
                this.command = command;
                this.data = ByteBuffer.allocate(length);
            }
        }

        @Override
        public void handlerAdded(ChannelHandlerContext c) {
            ctx = c;
        }

        @Override
        public void channelRead(ChannelHandlerContext c, Object msg) {
            ByteBuf in = (ByteBuf) msg;
            try {
                reader.read(in);
            } catch (PduException e) {
                ByteBuf t = c.alloc().buffer();
                TermReqPdu.encode(t, PduType.C2H_TERM_REQ, e.status(), e.fieldOffset(), reader.currentHeader());
                c.writeAndFlush(t).addListener(ChannelFutureListener.CLOSE);
            } finally {
                in.release();
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
            c.close();
        }

        @Override
        public void onPdu(PduType type, ByteBuf h) throws PduException {
            switch (type) {
                case IC_REQ -> onIcReq(h);
                case CAPSULE_CMD -> {
                    requireIc(type);
                    command(h.copy(0, h.readableBytes()), null);
                }
                case H2C_TERM_REQ -> {
                    termReqs.add(FatalErrorStatus.describe(TermReqPdu.fes(h)) + " FEI " + TermReqPdu.fei(h));
                    ctx.close();
                }
                default -> throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, 0, "unexpected " + type);
            }
        }

        private void requireIc(PduType type) throws PduException {
            if (!ic) {
                throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, type + " before ICReq");
            }
        }

        private void onIcReq(ByteBuf h) throws PduException {
            if (ic) {
                throw new PduException(FatalErrorStatus.PDU_SEQUENCE_ERROR, 0, "second ICReq");
            }
            ic = true;
            int bits = icRespDigestOverride >= 0 ? icRespDigestOverride
                    : (IcReqPdu.headerDigest(h) ? IcReqPdu.DGST_HEADER : 0) | (IcReqPdu.dataDigest(h) ? IcReqPdu.DGST_DATA : 0);
            hd = (bits & IcReqPdu.DGST_HEADER) != 0;
            dd = (bits & IcReqPdu.DGST_DATA) != 0;
            ByteBuf out = ctx.alloc().buffer(128);
            IcRespPdu.encode(out, 0, hd, dd, cpda, maxH2cData);
            ctx.writeAndFlush(out);
            reader.digests(hd, dd);
        }

        @Override
        public void onDataStart(PduType type, ByteBuf h, int length) throws PduException {
            requireIc(type);
            if (type == PduType.CAPSULE_CMD) {
                capsuleHeader = h.copy(0, h.readableBytes());
                inbound = ByteBuffer.allocate(length);
                inboundAt = 0;
                return;
            }
            int ttag = DataPdu.ttag(h);
            PendingWrite w = pendingWrites.get(ttag);
            if (w == null || DataPdu.cccid(h) != w.command.cid()) {
                throw new PduException(FatalErrorStatus.INVALID_PDU_HEADER_FIELD, DataPdu.OFFSET_TTAG,
                        "H2CData with unknown TTAG " + ttag);
            }
            long off = DataPdu.dataOffset(h);
            if (off != w.received || off + length > w.solicited) {
                throw new PduException(FatalErrorStatus.DATA_TRANSFER_OUT_OF_RANGE, DataPdu.OFFSET_DATAO,
                        "H2CData at " + off + " (+" + length + "), expected " + w.received + " up to " + w.solicited);
            }
            h2cTarget = w;
            h2cOffset = off;
        }

        @Override
        public void onData(ByteBuf chunk) {
            int n = chunk.readableBytes();
            if (h2cTarget != null) {
                chunk.getBytes(chunk.readerIndex(), h2cTarget.data.slice((int) h2cOffset, n));
                h2cOffset += n;
            } else {
                chunk.getBytes(chunk.readerIndex(), inbound.slice(inboundAt, n));
                inboundAt += n;
            }
        }

        @Override
        public void onDataEnd(PduType type, ByteBuf h, boolean digestOk) {
            if (!digestOk) {
                dataDigestErrors.incrementAndGet();
            }
            if (type == PduType.CAPSULE_CMD) {
                ByteBuf header = capsuleHeader;
                capsuleHeader = null;
                if (!digestOk) {
                    sqe.wrap(header, 8);
                    respond(sqe.cid(), 0, new NvmeStatus(0, 0x22, 0, false, false).toCqeHalfword());
                    header.release();
                    return;
                }
                command(header, inbound);
                return;
            }
            PendingWrite w = h2cTarget;
            h2cTarget = null;
            w.received += DataPdu.dataLength(h);
            if (!digestOk) {
                pendingWrites.remove(w.command.cid());
                respond(w.command.cid(), 0, new NvmeStatus(0, 0x22, 0, false, false).toCqeHalfword());
                return;
            }
            if (w.received == w.solicited && w.solicited < w.data.capacity()) {
                sendR2t(w);
            } else if (w.received == w.data.capacity()) {
                pendingWrites.remove(w.command.cid());
                store(w.command, w.data);
                respond(w.command.cid(), 0, 0);
            }
        }

        /** Handles a command capsule; takes ownership of {@code header}. */
        private void command(ByteBuf header, ByteBuffer data) {
            try {
                sqe.wrap(header, 8);
                int opcode = sqe.opcode();
                long slba = (sqe.cdw(10) & 0xFFFFFFFFL) | ((long) sqe.cdw(11) << 32);
                Command c = new Command(qid, opcode, opcode == Opcodes.FABRICS ? sqe.fctype() : -1, sqe.cid(),
                        sqe.nsid(), slba, (sqe.cdw(12) & 0xFFFF) + 1);
                Action a = hook.on(c);
                if (a instanceof Stall) {
                    return;
                }
                if (a instanceof Drop) {
                    ctx.close();
                    return;
                }
                if (a instanceof Raw r) {
                    ctx.writeAndFlush(Unpooled.wrappedBuffer(r.bytes()));
                    return;
                }
                if (a instanceof Fail f) {
                    respond(c.cid(), 0, new NvmeStatus(f.sct(), f.sc(), 0, false, true).toCqeHalfword());
                    return;
                }
                pendingCorruption = a;
                execute(c, data, sqe.sglLength(), sqe.sglIdentifier());
            } finally {
                header.release();
            }
        }

        private void execute(Command c, ByteBuffer data, long sglLength, int sglId) {
            if (qid < 0 && !(c.opcode() == Opcodes.FABRICS && c.fctype() == Opcodes.FCTYPE_CONNECT)) {
                respond(c.cid(), 0, status(0x0C));
                return;
            }
            switch (c.opcode()) {
                case Opcodes.FABRICS -> fabrics(c, data);
                case Opcodes.ADMIN_IDENTIFY -> identify(c);
                case Opcodes.ADMIN_SET_FEATURES -> {
                    int g = grantedQueues - 1;
                    respond(c.cid(), g | (long) g << 16, 0);
                }
                case Opcodes.ADMIN_KEEP_ALIVE -> {
                    keepAlives.incrementAndGet();
                    respond(c.cid(), 0, 0);
                }
                case Opcodes.IO_READ -> read(c, sglLength);
                case Opcodes.IO_WRITE -> write(c, data, sglLength, sglId);
                case Opcodes.IO_FLUSH -> {
                    flushes.incrementAndGet();
                    respond(c.cid(), 0, c.nsid() == 1 ? 0 : status(0x0B));
                }
                default -> respond(c.cid(), 0, status(0x01));
            }
        }

        private int status(int sc) {
            return new NvmeStatus(0, sc, 0, false, true).toCqeHalfword();
        }

        private void fabrics(Command c, ByteBuffer data) {
            // the SQE flyweight still points at this command's capsule
            int propertyOffset = sqe.cdw(11);
            long propertyValue = (sqe.cdw(12) & 0xFFFFFFFFL) | ((long) sqe.cdw(13) << 32);
            switch (c.fctype()) {
                case Opcodes.FCTYPE_CONNECT -> connect(c, data);
                case Opcodes.FCTYPE_PROPERTY_GET -> {
                    int[] regs = registers.get(cntlid);
                    long v = switch (propertyOffset) {
                        case ControllerRegisters.CAP -> new ControllerRegisters.Capabilities(mqes + 1, 1000, 4096, 4096,
                                true).encode();
                        case ControllerRegisters.VS -> 0x10400;
                        case ControllerRegisters.CC -> regs[0];
                        case ControllerRegisters.CSTS -> regs[1];
                        default -> -1;
                    };
                    if (v == -1) {
                        respond(c.cid(), 0, status(0x02));
                    } else {
                        respond(c.cid(), v, 0);
                    }
                }
                case Opcodes.FCTYPE_PROPERTY_SET -> {
                    int[] regs = registers.get(cntlid);
                    if (propertyOffset != ControllerRegisters.CC) {
                        respond(c.cid(), 0, status(0x02));
                        return;
                    }
                    int cc = (int) propertyValue;
                    regs[0] = cc;
                    int csts = 0;
                    if ((cc & ControllerRegisters.CC_ENABLE) != 0 && !neverReady) {
                        csts |= ControllerRegisters.CSTS_READY;
                    }
                    if ((cc & (3 << 14)) != 0) {
                        csts |= ControllerRegisters.CSTS_SHUTDOWN_COMPLETE;
                        shutdowns.incrementAndGet();
                    }
                    regs[1] = csts;
                    respond(c.cid(), 0, 0);
                }
                default -> respond(c.cid(), 0, status(0x01));
            }
        }

        private void connect(Command c, ByteBuffer data) {
            if (data == null || data.capacity() != ConnectData.LENGTH) {
                respond(c.cid(), 0, status(0x02));
                return;
            }
            int q = sqe.cdw(10) >>> 16;
            int connectEntries = (sqe.cdw(11) & 0xFFFF) + 1;
            int connectAttributes = (sqe.cdw(11) >>> 16) & 0xFF;
            long connectKato = sqe.cdw(12) & 0xFFFFFFFFL;
            String subnqn = ConnectData.subsystemNqn(data);
            if (!NQN.equals(subnqn)) {
                respond(c.cid(), 0, new NvmeStatus(1, 0x84, 0, false, true).toCqeHalfword());
                return;
            }
            hostNqns.add(ConnectData.hostNqn(data));
            if (q == 0) {
                cntlid = nextCntlid.getAndIncrement();
                registers.put(cntlid, new int[2]);
                controllerKato.put(cntlid, connectKato);
                lastKato = connectKato;
            } else {
                cntlid = ConnectData.controllerId(data);
                if (!registers.containsKey(cntlid)) {
                    respond(c.cid(), 0, new NvmeStatus(1, 0x82, 0, false, true).toCqeHalfword());
                    return;
                }
                ioConnects.incrementAndGet();
                sqFlowDisabled = (connectAttributes & 0x04) != 0;
                if (sqFlowDisabled) {
                    sqFlowDisabledQueues.add(q);
                }
            }
            qid = q;
            entries = connectEntries;
            respond(c.cid(), cntlid, 0);
        }

        private void identify(Command c) {
            ByteBuffer d = ByteBuffer.allocate(4096).order(ByteOrder.LITTLE_ENDIAN);
            int cns = sqe.cdw(10) & 0xFF;
            if (cns == Opcodes.CNS_CONTROLLER) {
                d.putShort(0, (short) 0x1b36);
                putAscii(d, 4, 20, "FAKE0001");
                putAscii(d, 24, 40, "Creel fake target");
                putAscii(d, 64, 8, "1.0");
                d.put(77, (byte) mdts);
                d.putShort(78, (short) cntlid);
                d.putInt(80, 0x10400);
                d.putShort(320, (short) 10);
                d.putShort(514, (short) (mqes + 1));
                d.putInt(516, 1);
                putAscii(d, 768, 256, NQN);
                d.putInt(1792, (64 + inCapsuleBytes) / 16);
                d.put(1803, (byte) 1);
            } else if (cns == Opcodes.CNS_NAMESPACE) {
                if (c.nsid() != 1) {
                    respond(c.cid(), 0, status(0x0B));
                    return;
                }
                d.putLong(0, sectors);
                d.putLong(8, sectors);
                d.putLong(16, sectors);
                d.put(25, (byte) 0);
                d.put(26, (byte) 0);
                d.putInt(128, Integer.numberOfTrailingZeros(sectorSize) << 16);
            } else if (cns == Opcodes.CNS_ACTIVE_NAMESPACES) {
                d.putInt(0, 1);
            } else {
                respond(c.cid(), 0, status(0x02));
                return;
            }
            sendData(c.cid(), d, true);
        }

        private void read(Command c, long sglLength) {
            reads.incrementAndGet();
            if (c.nsid() != 1) {
                respond(c.cid(), 0, status(0x0B));
                return;
            }
            if (c.slba() + c.blocks() > sectors) {
                respond(c.cid(), 0, status(0x80));
                return;
            }
            int len = c.blocks() * sectorSize;
            if (sglLength != len) {
                respond(c.cid(), 0, status(0x0F));
                return;
            }
            ByteBuffer d = ByteBuffer.allocate(len);
            synchronized (storage) {
                d.put(0, storage, (int) (c.slba() * sectorSize), len);
            }
            sendData(c.cid(), d, !sqFlowDisabled);
        }

        private void write(Command c, ByteBuffer data, long sglLength, int sglId) {
            writes.incrementAndGet();
            if (c.nsid() != 1) {
                respond(c.cid(), 0, status(0x0B));
                return;
            }
            if (c.slba() + c.blocks() > sectors) {
                respond(c.cid(), 0, status(0x80));
                return;
            }
            int len = c.blocks() * sectorSize;
            if (sglLength != len) {
                respond(c.cid(), 0, status(0x0F));
                return;
            }
            if (sglId == SubmissionEntry.SGL_IN_CAPSULE) {
                inCapsuleWrites.incrementAndGet();
                store(c, data);
                respond(c.cid(), 0, 0);
                return;
            }
            r2tWrites.incrementAndGet();
            PendingWrite w = new PendingWrite(c, len);
            pendingWrites.put(c.cid(), w);
            sendR2t(w);
        }

        private void sendR2t(PendingWrite w) {
            long len = Math.min(r2tChunk, w.data.capacity() - w.solicited);
            ByteBuf out = ctx.alloc().buffer();
            int start = out.writerIndex();
            R2tPdu.encode(out, hd, w.command.cid(), w.command.cid(), w.solicited, len);
            headerDigest(out, start, 24);
            w.solicited += len;
            ctx.writeAndFlush(out);
        }

        private void store(Command c, ByteBuffer data) {
            synchronized (storage) {
                storage.put((int) (c.slba() * sectorSize), data, 0, data.capacity());
            }
        }

        /** C2HData PDUs for the whole buffer, then a response unless SUCCESS ends the last PDU. */
        private void sendData(int cid, ByteBuffer d, boolean thenRespond) {
            int len = d.capacity();
            for (int off = 0; off < len; ) {
                int n = Math.min(c2hChunk, len - off);
                boolean last = off + n == len;
                int flags = last ? CommonHeader.FLAG_LAST_PDU | (thenRespond ? 0 : CommonHeader.FLAG_SUCCESS) : 0;
                ByteBuf out = ctx.alloc().buffer();
                int start = out.writerIndex();
                DataPdu.encodeHeader(out, PduType.C2H_DATA, flags, hd, dd, cid, 0, off, n);
                headerDigest(out, start, 24);
                int dataStart = out.writerIndex();
                out.writeBytes(d.slice(off, n));
                if (dd) {
                    int crc = digest.of(out, dataStart, n);
                    if (pendingCorruption instanceof CorruptDataDigest) {
                        crc ^= 1;
                        pendingCorruption = NORMAL;
                    }
                    out.writeIntLE(crc);
                }
                ctx.write(out);
                off += n;
            }
            ctx.flush();
            if (thenRespond) {
                respond(cid, 0, 0);
            }
        }

        private void respond(int cid, long result, int status) {
            ByteBuf out = ctx.alloc().buffer();
            int start = out.writerIndex();
            int at = CapsuleResponsePdu.encodeHeader(out, hd);
            sqHead = (sqHead + 1) % Math.max(1, entries);
            cqe.wrap(out, at).set(result, sqFlowDisabled ? 0xFFFF : sqHead, Math.max(qid, 0), cid, status);
            headerDigest(out, start, 24);
            ctx.writeAndFlush(out);
        }

        private void headerDigest(ByteBuf out, int start, int hlen) {
            if (hd) {
                int crc = digest.of(out, start, hlen);
                if (pendingCorruption instanceof CorruptHeaderDigest) {
                    crc ^= 1;
                    pendingCorruption = NORMAL;
                }
                out.writeIntLE(crc);
            }
        }

        private void putAscii(ByteBuffer d, int at, int len, String s) {
            byte[] b = s.getBytes(StandardCharsets.US_ASCII);
            for (int i = 0; i < len; i++) {
                d.put(at + i, i < b.length ? b[i] : (byte) (len == 256 ? 0 : ' '));
            }
        }
    }
}
