package io.creel.storage.rdma.tier;

import io.creel.common.protocol.StorageServerInfo;
import io.creel.storage.rdma.AtomicSupport;
import io.creel.storage.rdma.RemoteRegion;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a client needs to reach a storage server's blocks with one-sided RDMA, as the server's
 * exporter publishes it in the server's description ({@code rdma.*} attributes): where to connect,
 * the registered segments holding the blocks, the registered tag table, the probe word that tells
 * whether both devices agree on compare-and-swap, the byte order of the tag words, and how atomic the
 * server's device is. After start the server does nothing per block: everything else is the
 * clients' one-sided operations on these regions.
 *
 * @param endpoint         the exporter's RDMA listener
 * @param segments         block segments in order, each {@code blocksPerSegment} blocks (the last maybe fewer)
 * @param blocksPerSegment blocks per segment
 * @param tags             the tag table: one 8-byte word per block
 * @param probe            an 8-byte word holding {@link #PROBE} in the server's byte order, registered for
 *                         atomics; null when the server's device has none
 * @param tagOrder         byte order of the tag words
 * @param atomics          the server device's atomic support
 */
public record RdmaExportLayout(InetSocketAddress endpoint, List<RemoteRegion> segments, int blocksPerSegment,
                               RemoteRegion tags, RemoteRegion probe, ByteOrder tagOrder, AtomicSupport atomics) {
    /** The value of the probe word: asymmetric, so a device that swaps byte orders cannot match it. */
    public static final long PROBE = 0x0123_4567_89ab_cdefL;

    static final String ADDRESS = "rdma.address";
    static final String PORT = "rdma.port";
    static final String SEGMENTS = "rdma.segments";
    static final String SEGMENT_BLOCKS = "rdma.segment.blocks";
    static final String TAGS = "rdma.tags";
    static final String PROBE_REGION = "rdma.probe";
    static final String TAG_ORDER = "rdma.tag.order";
    static final String ATOMICS = "rdma.atomics";

    public RdmaExportLayout {
        segments = List.copyOf(segments);
        if (segments.isEmpty() || blocksPerSegment < 1) {
            throw new IllegalArgumentException("an RDMA export has at least one segment of whole blocks");
        }
    }

    /** The attributes for the server's description. */
    public Map<String, String> toAttributes() {
        Map<String, String> a = new LinkedHashMap<>();
        a.put(ADDRESS, endpoint.getAddress().getHostAddress());
        a.put(PORT, Integer.toString(endpoint.getPort()));
        List<String> s = new ArrayList<>();
        for (RemoteRegion r : segments) {
            s.add(format(r));
        }
        a.put(SEGMENTS, String.join(",", s));
        a.put(SEGMENT_BLOCKS, Integer.toString(blocksPerSegment));
        a.put(TAGS, format(tags));
        if (probe != null) {
            a.put(PROBE_REGION, format(probe));
        }
        a.put(TAG_ORDER, tagOrder == ByteOrder.BIG_ENDIAN ? "big" : "little");
        a.put(ATOMICS, atomics.name().toLowerCase(Locale.ROOT));
        return a;
    }

    /** Whether the server describes an RDMA export at all. */
    public static boolean offeredBy(StorageServerInfo server) {
        return !server.attribute(ADDRESS).isEmpty();
    }

    /**
     * The layout a server describes.
     *
     * @throws IllegalArgumentException naming the attribute, when it is missing or malformed
     */
    public static RdmaExportLayout of(StorageServerInfo server) {
        InetAddress address;
        try {
            address = InetAddress.getByName(required(server, ADDRESS));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(ADDRESS + " is not an address: " + server.attribute(ADDRESS), e);
        }
        int port = parseInt(server, PORT);
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException(PORT + " out of range: " + port);
        }
        List<RemoteRegion> segments = new ArrayList<>();
        for (String s : required(server, SEGMENTS).split(",")) {
            segments.add(parse(SEGMENTS, s));
        }
        int perSegment = parseInt(server, SEGMENT_BLOCKS);
        RemoteRegion tags = parse(TAGS, required(server, TAGS));
        String probeText = server.attribute(PROBE_REGION);
        RemoteRegion probe = probeText.isEmpty() ? null : parse(PROBE_REGION, probeText);
        ByteOrder order = switch (required(server, TAG_ORDER)) {
            case "little" -> ByteOrder.LITTLE_ENDIAN;
            case "big" -> ByteOrder.BIG_ENDIAN;
            default -> throw new IllegalArgumentException(TAG_ORDER + " must be little or big: "
                    + server.attribute(TAG_ORDER));
        };
        AtomicSupport atomics;
        try {
            atomics = AtomicSupport.valueOf(required(server, ATOMICS).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(ATOMICS + " is not none, device or global: " + server.attribute(ATOMICS), e);
        }
        RdmaExportLayout layout = new RdmaExportLayout(new InetSocketAddress(address, port), segments, perSegment, tags,
                probe, order, atomics);
        layout.checkCovers(server);
        return layout;
    }

    /** Fails unless the segments and tag table cover every block of the server. */
    private void checkCovers(StorageServerInfo server) {
        long blocks = server.blockCount();
        int blockSize = server.blockSize();
        long needed = (blocks + blocksPerSegment - 1) / blocksPerSegment;
        if (segments.size() != needed) {
            throw new IllegalArgumentException(SEGMENTS + " lists " + segments.size() + " segments, " + blocks
                    + " blocks in segments of " + blocksPerSegment + " need " + needed);
        }
        for (int i = 0; i < segments.size(); i++) {
            long inThis = Math.min(blocksPerSegment, blocks - (long) i * blocksPerSegment);
            if (segments.get(i).length() < inThis * blockSize) {
                throw new IllegalArgumentException(SEGMENTS + ": segment " + i + " is shorter than its " + inThis
                        + " blocks");
            }
        }
        if (tags.length() < blocks * 8) {
            throw new IllegalArgumentException(TAGS + " is shorter than " + blocks + " tag words");
        }
    }

    /** The segment holding {@code block}. */
    public RemoteRegion segmentOf(long block) {
        return segments.get((int) (block / blocksPerSegment));
    }

    /** Offset of byte {@code offset} of {@code block} within its segment. */
    public long offsetInSegment(long block, int blockSize, int offset) {
        return (block % blocksPerSegment) * blockSize + offset;
    }

    /** Offset of {@code block}'s tag word within {@link #tags()}. */
    public static long tagOffset(long block) {
        return block * 8;
    }

    private static String format(RemoteRegion r) {
        return Long.toHexString(r.address()) + "+" + Long.toHexString(r.length()) + ":" + Integer.toHexString(r.rkey());
    }

    private static RemoteRegion parse(String key, String text) {
        int plus = text.indexOf('+');
        int colon = text.indexOf(':');
        if (plus < 1 || colon < plus + 2 || colon == text.length() - 1) {
            throw new IllegalArgumentException(key + ": not address+length:rkey: " + text);
        }
        try {
            return new RemoteRegion(Long.parseUnsignedLong(text.substring(0, plus), 16),
                    Long.parseLong(text.substring(plus + 1, colon), 16),
                    Integer.parseUnsignedInt(text.substring(colon + 1), 16));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + ": not address+length:rkey in hex: " + text, e);
        }
    }

    private static String required(StorageServerInfo server, String key) {
        String v = server.attribute(key);
        if (v.isEmpty()) {
            throw new IllegalArgumentException("the server's description has no " + key);
        }
        return v;
    }

    private static int parseInt(StorageServerInfo server, String key) {
        try {
            return Integer.parseInt(required(server, key));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " is not a number: " + server.attribute(key), e);
        }
    }
}
