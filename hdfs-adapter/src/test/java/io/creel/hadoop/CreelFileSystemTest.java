package io.creel.hadoop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.common.namespace.NodeType;
import io.creel.storage.runtime.StorageServerRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileContext;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.Options;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.io.IOUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The adapter beyond Hadoop's contract: Creel's own view of the bytes, block hosts, capacity, node types, configuration. */
class CreelFileSystemTest {
    private static final long B = TestCluster.BLOCK_SIZE;
    private static FileSystem fs;
    private static CreelClient client;

    @BeforeAll
    static void connect() throws IOException {
        fs = FileSystem.newInstance(TestCluster.uri(), TestCluster.configuration());
        client = CreelClient.connect(TestCluster.get().clientConf());
    }

    @AfterAll
    static void close() throws IOException {
        client.close();
        fs.close();
    }

    private static byte[] data(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] readAll(FileSystem fs, Path p) throws IOException {
        try (FSDataInputStream in = fs.open(p)) {
            return in.readAllBytes();
        }
    }

    @Test
    void theServiceFileMakesCreelTheImplementationOfTheCreelScheme() throws IOException {
        assertEquals(CreelFileSystem.class, FileSystem.getFileSystemClass("creel", new Configuration()));
        assertTrue(FileSystem.get(TestCluster.uri(), TestCluster.configuration()) instanceof CreelFileSystem);
    }

    @Test
    void aFileWrittenThroughHadoopReadsBackIdenticallyThroughTheCreelClient() throws Exception {
        byte[] bytes = data((int) (3 * B + 1234), 1);
        Path p = new Path("/roundtrip/from-hadoop.bin");
        try (FSDataOutputStream out = fs.create(p)) {
            out.write(bytes, 0, 1000);
            out.write(bytes, 1000, bytes.length - 1000);
        }
        CreelNode node = client.lookup("/roundtrip/from-hadoop.bin").join();
        assertEquals(NodeType.FILE, node.type());
        try (InputStream in = node.inputStream()) {
            assertArrayEquals(bytes, in.readAllBytes());
        }
    }

    @Test
    void aFileWrittenThroughTheCreelClientReadsBackIdenticallyThroughHadoop() throws Exception {
        byte[] bytes = data((int) (2 * B + 77), 2);
        client.create("/roundtrip2", NodeType.DIRECTORY).join();
        try (OutputStream out = client.create("/roundtrip2/from-creel.bin", NodeType.FILE).join().outputStream()) {
            out.write(bytes);
        }
        Path p = new Path("/roundtrip2/from-creel.bin");
        assertEquals(bytes.length, fs.getFileStatus(p).getLen());
        assertArrayEquals(bytes, readAll(fs, p));
        try (FSDataInputStream in = fs.open(p)) {
            byte[] middle = new byte[1000];
            in.readFully(B - 500, middle); // positioned read across a block boundary
            assertArrayEquals(Arrays.copyOfRange(bytes, (int) B - 500, (int) B + 500), middle);
            assertEquals(0, in.getPos(), "a positioned read leaves the position alone");
        }
    }

    @Test
    void hflushPublishesTheBytesToNewReadersWhileTheWriterStaysOpen() throws Exception {
        Path p = new Path("/flush/f");
        try (FSDataOutputStream out = fs.create(p)) {
            assertTrue(out.hasCapability(StreamCapabilities.HFLUSH));
            out.write(data(100, 3));
            assertEquals(0, fs.getFileStatus(p).getLen(), "unsynced bytes are not visible");
            out.hflush();
            assertEquals(100, fs.getFileStatus(p).getLen());
            assertEquals(100, readAll(fs, p).length);
            out.write(data(50, 4));
            out.hsync();
            assertEquals(150, readAll(fs, p).length);
        }
    }

    @Test
    void blockLocationsNameTheStorageServersHoldingEachBlock() throws Exception {
        byte[] bytes = data((int) (3 * B + B / 2), 5);
        Path p = new Path("/blocks/f");
        try (FSDataOutputStream out = fs.create(p)) {
            out.write(bytes);
        }
        FileStatus st = fs.getFileStatus(p);
        assertEquals(B, st.getBlockSize());
        BlockLocation[] all = fs.getFileBlockLocations(st, 0, st.getLen());
        assertEquals(4, all.length);
        Set<String> servers = TestCluster.get().storageServers().stream().map(StorageServerRuntime::info)
                .map(i -> i.host() + ":" + i.port()).collect(Collectors.toSet());
        for (int i = 0; i < all.length; i++) {
            assertEquals(i * B, all[i].getOffset());
            assertEquals(i < 3 ? B : B / 2, all[i].getLength());
            assertEquals(1, all[i].getHosts().length);
            assertEquals("127.0.0.1", all[i].getHosts()[0]);
            assertTrue(servers.contains(all[i].getNames()[0]), all[i].getNames()[0] + " is one of " + servers);
        }
        // Where Creel says block 2 lives.
        var creelBlock2 = client.blockLocations(client.lookup("/blocks/f").join(), 2 * B, 1).join().get(0).server();
        BlockLocation[] one = fs.getFileBlockLocations(st, 2 * B + 10, 20);
        assertEquals(1, one.length);
        assertEquals(creelBlock2.host() + ":" + creelBlock2.port(), one[0].getNames()[0]);
        assertEquals(0, fs.getFileBlockLocations(st, st.getLen(), 10).length, "nothing at or beyond the end");
        assertEquals(0, fs.getFileBlockLocations(fs.getFileStatus(new Path("/blocks")), 0, 10).length);
    }

    @Test
    void statusSumsTheCapacityAndUseOfEveryStorageServer() throws Exception {
        long capacity = TestCluster.get().storageServers().stream().map(StorageServerRuntime::info)
                .mapToLong(i -> i.blockCount() * i.blockSize()).sum();
        Path p = new Path("/status/f");
        try (FSDataOutputStream out = fs.create(p)) {
            out.write(data((int) (4 * B), 6));
        }
        FsStatus st = fs.getStatus();
        assertEquals(capacity, st.getCapacity());
        assertTrue(st.getUsed() >= 4 * B, "the 4 blocks just written are in use: " + st.getUsed());
        assertEquals(st.getCapacity() - st.getUsed(), st.getRemaining());
    }

    @Test
    void bagsAndTablesAppearAsDirectories() throws Exception {
        client.create("/kinds", NodeType.DIRECTORY).join();
        client.create("/kinds/bag", NodeType.BAG).join();
        try (OutputStream out = client.create("/kinds/bag/part-0", NodeType.FILE).join().outputStream()) {
            out.write(data(10, 7));
        }
        try (FSDataOutputStream out = fs.create(new Path("/kinds/bag/part-1"))) {
            out.write(data(20, 8));
        }
        assertTrue(fs.getFileStatus(new Path("/kinds/bag")).isDirectory());
        FileStatus[] parts = fs.listStatus(new Path("/kinds/bag"));
        assertEquals(2, parts.length);
        assertEquals("part-0", parts[0].getPath().getName());
        assertEquals(20, parts[1].getLen());
        try (InputStream all = client.lookup("/kinds/bag").join().bagStream()) {
            assertEquals(30, all.readAllBytes().length, "a file created through Hadoop is part of the Bag");
        }
        IOException noDirInBag = assertThrows(IOException.class, () -> fs.mkdirs(new Path("/kinds/bag/sub")));
        assertTrue(noDirInBag.getMessage().contains("Bag"), noDirInBag.getMessage());

        client.create("/kinds/table", NodeType.TABLE).join();
        client.putValue("/kinds/table", "alice", java.nio.ByteBuffer.wrap(data(5, 9))).join();
        FileStatus table = fs.getFileStatus(new Path("/kinds/table"));
        assertTrue(table.isDirectory());
        FileStatus[] keys = fs.listStatus(new Path("/kinds/table"));
        assertEquals(1, keys.length);
        assertTrue(keys[0].isFile());
        assertEquals(5, readAll(fs, keys[0].getPath()).length);
        IOException noFileInTable = assertThrows(IOException.class,
                () -> fs.create(new Path("/kinds/table/bob")).close());
        assertTrue(noFileInTable.getMessage().contains("Table"), noFileInTable.getMessage());
    }

    @Test
    void ownersAndPermissionsAreFixedValues() throws Exception {
        Path p = new Path("/perm/f");
        fs.create(p).close();
        FileStatus f = fs.getFileStatus(p);
        FileStatus d = fs.getFileStatus(p.getParent());
        String me = org.apache.hadoop.security.UserGroupInformation.getCurrentUser().getShortUserName();
        assertEquals(me, f.getOwner());
        assertEquals(me, f.getGroup());
        assertEquals(CreelFileSystem.FILE_PERMISSION, f.getPermission());
        assertEquals(CreelFileSystem.DIRECTORY_PERMISSION, d.getPermission());
        fs.setPermission(p, new org.apache.hadoop.fs.permission.FsPermission((short) 0600));
        assertEquals(CreelFileSystem.FILE_PERMISSION, fs.getFileStatus(p).getPermission(), "permissions are not kept");
    }

    @Test
    void pathCapabilitiesTellWhatIsSupported() throws Exception {
        Path root = new Path("/");
        assertTrue(fs.hasPathCapability(root, CommonPathCapabilities.FS_APPEND));
        assertTrue(fs.hasPathCapability(root, StreamCapabilities.HFLUSH));
        assertFalse(fs.hasPathCapability(root, CommonPathCapabilities.FS_CONCAT));
        assertFalse(fs.hasPathCapability(root, CommonPathCapabilities.FS_PERMISSIONS));
        assertFalse(fs.hasPathCapability(root, CommonPathCapabilities.FS_TRUNCATE));
        try (FSDataInputStream in = fs.open(writeSmall("/caps/f"))) {
            assertTrue(in.hasCapability(StreamCapabilities.UNBUFFER));
            assertTrue(in.hasCapability(StreamCapabilities.PREADBYTEBUFFER));
            assertFalse(in.hasCapability(StreamCapabilities.DROPBEHIND));
        }
    }

    private static Path writeSmall(String path) throws IOException {
        Path p = new Path(path);
        try (FSDataOutputStream out = fs.create(p, true)) {
            out.write(data(10, 10));
        }
        return p;
    }

    @Test
    void theUriAuthorityOverridesTheConfiguredNamenodeAndTheStorageClassKeyPlacesNewFiles() throws Exception {
        Configuration conf = TestCluster.configuration();
        conf.set(CreelHadoopConf.NAMENODE_ADDRESS, "creel://127.0.0.1:1"); // nothing listens there
        conf.set(CreelHadoopConf.STORAGE_CLASS, "disk");
        try (FileSystem diskFs = FileSystem.newInstance(TestCluster.uri(), conf)) {
            Path p = new Path("/placed/on-disk");
            try (FSDataOutputStream out = diskFs.create(p)) {
                out.write(data((int) B + 1, 11));
            }
            var blocks = client.blockLocations(client.lookup("/placed/on-disk").join(), 0, B + 1).join();
            assertEquals(2, blocks.size());
            blocks.forEach(b -> assertEquals("disk", b.server().storageClass()));
        }
    }

    @Test
    void fileContextWorksThroughCreelFs() throws Exception {
        Configuration conf = TestCluster.configuration();
        conf.set("fs.AbstractFileSystem.creel.impl", CreelFs.class.getName());
        FileContext fc = FileContext.getFileContext(TestCluster.uri(), conf);
        Path dir = new Path("/context");
        fc.mkdir(dir, null, true);
        byte[] bytes = data(3000, 12);
        try (FSDataOutputStream out = fc.create(new Path(dir, "f"), java.util.EnumSet.of(
                org.apache.hadoop.fs.CreateFlag.CREATE), Options.CreateOpts.createParent())) {
            out.write(bytes);
        }
        fc.rename(new Path(dir, "f"), new Path(dir, "g"));
        try (FSDataInputStream in = fc.open(new Path(dir, "g"))) {
            byte[] back = new byte[bytes.length];
            IOUtils.readFully(in, back, 0, back.length);
            assertArrayEquals(bytes, back);
        }
        assertEquals(1, fc.util().listStatus(dir).length);
    }
}
