package io.creel.hadoop;

import io.creel.client.ClientKeys;
import io.creel.client.CreateOptions;
import io.creel.client.CreelClient;
import io.creel.client.CreelNode;
import io.creel.client.DirectoryEntry;
import io.creel.client.integration.SharedClient;
import io.creel.client.integration.SharedClients;
import io.creel.client.io.NodeOutputStream;
import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.namespace.NodeType;
import io.creel.common.namespace.PathName;
import io.creel.common.protocol.NodeInfo;
import io.creel.common.protocol.ServerStatus;
import io.creel.common.protocol.StatusReply;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.CommonPathCapabilities;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileAlreadyExistsException;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FsStatus;
import org.apache.hadoop.fs.ParentNotDirectoryException;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.PathIsNotEmptyDirectoryException;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.fs.StreamCapabilities;
import org.apache.hadoop.fs.impl.PathCapabilitiesSupport;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.security.UserGroupInformation;
import org.apache.hadoop.util.Progressable;

/**
 * Hadoop's view of Creel: {@code creel://host:port/path}. Found through
 * {@code META-INF/services/org.apache.hadoop.fs.FileSystem}, so no {@code fs.creel.impl} is needed.
 *
 * <p>Node types map as follows: a Directory, Bag or Table is a directory; a File or KeyValue is a
 * file. Files can be created in Directories and Bags; a Table accepts no Files (it holds
 * KeyValues only, written through Creel's own API), so creating a file in it fails with the
 * namenode's rule as the message. Permissions: where the namenode enforces them (a cluster with a
 * secret), a {@link FileStatus} shows the node's owner, group and mode, {@code setPermission} and
 * {@code setOwner} change them, a new node gets the permission {@code create} or {@code mkdirs} was
 * given less the client's umask, and a refusal is an {@link org.apache.hadoop.security.AccessControlException};
 * elsewhere every path reports the current user as owner and group, {@code rwxrwxrwx} for
 * directories and {@code rw-rw-rw-} for files, and setPermission/setOwner are accepted and ignored.
 *
 * <p>Rename follows HDFS: into an existing directory it moves under it; onto an existing file,
 * from a missing source, or to a missing parent it returns false.
 */
public class CreelFileSystem extends FileSystem {
    /** The URI scheme. */
    public static final String SCHEME = "creel";
    /** The port of {@code creel://host/} URIs without one (the namenode's usual port). */
    public static final int DEFAULT_PORT = 9060;
    /** Permission reported for every directory: Creel keeps no permissions and checks none. */
    public static final FsPermission DIRECTORY_PERMISSION = new FsPermission((short) 0777);
    /** Permission reported for every file. */
    public static final FsPermission FILE_PERMISSION = new FsPermission((short) 0666);

    private URI uri;
    /** This file system's hold on the process's client of its settings. */
    private SharedClient shared;
    private CreelClient client;
    private Path workingDir;
    private Duration timeout;
    private CreateOptions fileOptions;
    private long blockSize;
    private String user;

    @Override
    public String getScheme() {
        return SCHEME;
    }

    @Override
    public void initialize(URI name, Configuration conf) throws IOException {
        super.initialize(name, conf);
        setConf(conf);
        CreelConf creel;
        try {
            creel = CreelHadoopConf.creelConf(name, conf);
        } catch (CreelException e) {
            throw HadoopErrors.toIOException(e);
        }
        String authority = name.getAuthority();
        this.uri = URI.create(SCHEME + "://" + (authority == null ? "" : authority) + "/");
        this.shared = SharedClients.acquire(creel);
        this.client = shared.client();
        this.timeout = client.requestTimeout();
        this.blockSize = client.blockSize();
        String storageClass = CreelHadoopConf.settings(conf).storageClass("");
        // fs.creel.replication, not create()'s argument: Hadoop passes its own defaults there (dfs.replication,
        // 10 for job files), which would ask for more hosts than a Creel cluster may have.
        this.fileOptions = (storageClass.isEmpty() ? CreateOptions.defaults()
                : CreateOptions.defaults().withStorageClass(storageClass))
                .withReplication(CreelHadoopConf.settings(conf).replication(""));
        this.user = UserGroupInformation.getCurrentUser().getShortUserName();
        this.workingDir = getHomeDirectory();
    }

    /**
     * The Creel client this file system uses (for callers that want Creel's own API too). File
     * systems of the same settings in a process share it: do not close it, close the file system.
     */
    public CreelClient client() {
        return client;
    }

    @Override
    public URI getUri() {
        return uri;
    }

    @Override
    protected int getDefaultPort() {
        return DEFAULT_PORT;
    }

    /** Creel has no delegation tokens. */
    @Override
    public String getCanonicalServiceName() {
        return null;
    }

    @Override
    public Path getHomeDirectory() {
        return makeQualified(new Path(USER_HOME_PREFIX + "/" + user));
    }

    @Override
    public void setWorkingDirectory(Path dir) {
        workingDir = makeQualified(dir.isAbsolute() ? dir : new Path(workingDir, dir));
    }

    @Override
    public Path getWorkingDirectory() {
        return workingDir;
    }

    @Override
    public long getDefaultBlockSize() {
        return blockSize;
    }

    @Override
    public short getDefaultReplication() {
        int copies = fileOptions.replication() != 0 ? fileOptions.replication()
                : client.conf().get(ClientKeys.REPLICATION);
        return (short) Math.max(1, copies);
    }

    /** Creel sets a File's factor at its create ({@code fs.creel.replication}); it cannot change later. */
    @Override
    public boolean setReplication(Path src, short replication) throws IOException {
        lookup(creelPath(src)); // a missing path is still FileNotFoundException, as the contract wants
        return false;
    }

    // ---- paths and statuses ----

    /** The Creel path of {@code p} (absolute, normalised). */
    String creelPath(Path p) {
        Path abs = p.isAbsolute() ? p : new Path(workingDir, p);
        checkPath(abs);
        String s = abs.toUri().getPath();
        return s == null || s.isEmpty() ? "/" : s;
    }

    private Path qualify(String creelPath) {
        return new Path(uri.getScheme(), uri.getAuthority(), creelPath);
    }

    private FileStatus status(String path, NodeInfo n) {
        boolean dir = n.type().isContainer();
        short copies = n.replication() > 0 ? (short) n.replication() : getDefaultReplication();
        io.creel.common.protocol.NodeAccess a = n.access();
        FsPermission permission = a != null ? new FsPermission((short) a.mode())
                : dir ? DIRECTORY_PERMISSION : FILE_PERMISSION;
        return new FileStatus(dir ? 0 : n.length(), dir, dir ? 0 : copies, dir ? 0 : blockSize, n.modifiedMillis(),
                n.modifiedMillis(), permission, a != null ? a.owner() : user, a != null ? a.group() : user,
                qualify(path));
    }

    private <T> T await(CompletableFuture<T> f, String what) throws IOException {
        return HadoopErrors.await(f, timeout, what);
    }

    /** The node at {@code path}; a path through a File is as missing as a path that does not exist. */
    private CreelNode lookup(String path) throws IOException {
        try {
            return await(client.lookup(path), "lookup " + path);
        } catch (ParentNotDirectoryException e) {
            FileNotFoundException fnf = new FileNotFoundException(e.getMessage());
            fnf.initCause(e);
            throw fnf;
        }
    }

    /** Like {@link #lookup} but {@code null} when missing. */
    private CreelNode lookupOrNull(String path) throws IOException {
        try {
            return lookup(path);
        } catch (FileNotFoundException e) {
            return null;
        }
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
        String p = creelPath(f);
        statistics.incrementReadOps(1);
        return status(p, lookup(p).info());
    }

    // ---- reading ----

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
        String p = creelPath(f);
        statistics.incrementReadOps(1);
        CreelNode node = lookup(p);
        if (node.type().isContainer()) {
            throw new FileNotFoundException(p + " is a " + node.type().displayName() + " (a directory), not a file");
        }
        return new FSDataInputStream(new CreelInputStream(node, timeout, statistics));
    }

    // ---- writing ----

    @Override
    public FSDataOutputStream create(Path f, FsPermission permission, boolean overwrite, int bufferSize,
                                     short replication, long blockSize, Progressable progress) throws IOException {
        String p = creelPath(f);
        PathName name = parse(p);
        if (name.isRoot()) {
            throw new FileAlreadyExistsException("/ is the root directory; a file cannot replace it");
        }
        mkdirsInternal(name.parent().toString());
        return createFile(p, overwrite, permission);
    }

    @Override
    public FSDataOutputStream createNonRecursive(Path f, FsPermission permission, EnumSet<CreateFlag> flags,
                                                 int bufferSize, short replication, long blockSize,
                                                 Progressable progress) throws IOException {
        String p = creelPath(f);
        if (parse(p).isRoot()) {
            throw new FileAlreadyExistsException("/ is the root directory; a file cannot replace it");
        }
        return createFile(p, flags.contains(CreateFlag.OVERWRITE), permission);
    }

    /** Creates a File whose parent exists; an existing File is replaced only with {@code overwrite}. */
    private FSDataOutputStream createFile(String p, boolean overwrite, FsPermission permission) throws IOException {
        statistics.incrementWriteOps(1);
        CreelNode node;
        try {
            node = await(client.create(p, NodeType.FILE, fileOptions), "create " + p);
        } catch (FileAlreadyExistsException e) {
            CreelNode existing = lookupOrNull(p);
            if (existing != null && existing.type().isContainer()) {
                throw new FileAlreadyExistsException(p + " is a " + existing.type().displayName()
                        + " (a directory); a file cannot replace it");
            }
            if (existing != null && !overwrite) {
                throw new FileAlreadyExistsException(p + " already exists (create without overwrite)");
            }
            if (existing != null) {
                try {
                    await(client.delete(p, false), "delete " + p + " to overwrite it");
                } catch (FileNotFoundException gone) {
                    // removed by someone else meanwhile: the create below decides
                }
            }
            node = await(client.create(p, NodeType.FILE, fileOptions), "create " + p);
        }
        applyPermission(p, node, permission);
        return new FSDataOutputStream(new CreelOutputStream(p, outputStream(node)), statistics);
    }

    @Override
    public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
        String p = creelPath(f);
        statistics.incrementWriteOps(1);
        CreelNode existing = lookup(p);
        if (existing.type() != NodeType.FILE) {
            throw new IOException(p + " is a " + existing.type().displayName() + "; only Files can be appended to");
        }
        CreelNode node = await(client.openForAppend(p), "append " + p);
        return new FSDataOutputStream(new CreelOutputStream(p, outputStream(node)), statistics, node.length());
    }

    private NodeOutputStream outputStream(CreelNode node) {
        return new NodeOutputStream(node.writer(), client.conf().get(ClientKeys.BUFFER_SIZE), timeout);
    }

    // ---- namespace ----

    @Override
    public boolean mkdirs(Path f, FsPermission permission) throws IOException {
        statistics.incrementWriteOps(1);
        String p = creelPath(f);
        applyPermission(p, mkdirsInternal(p), permission);
        return true;
    }

    /**
     * As HDFS does, gives a node this call created {@code permission} less the client's umask
     * ({@code fs.permissions.umask-mode}), where the namenode keeps permissions and the mode it chose
     * differs; one more namenode call only then.
     */
    private void applyPermission(String p, CreelNode created, FsPermission permission) throws IOException {
        io.creel.common.protocol.NodeAccess a = created == null ? null : created.info().access();
        if (a == null || permission == null) {
            return;
        }
        FsPermission umask = getConf() == null ? new FsPermission((short) 022) : FsPermission.getUMask(getConf());
        int wanted = permission.applyUMask(umask).toShort()
                & io.creel.common.protocol.NodeAccess.ALL;
        if (wanted != a.mode()) {
            setAccess(p, "", "", wanted, "set the permission of new node");
        }
    }

    /**
     * Makes {@code p} and every missing ancestor a Directory; existing containers are fine, a File is
     * not. Returns {@code p}'s node if this call created it, else {@code null}.
     */
    private CreelNode mkdirsInternal(String p) throws IOException {
        PathName name = parse(p);
        if (name.isRoot()) {
            return null;
        }
        for (int attempt = 0; ; attempt++) {
            try {
                return await(client.create(p, NodeType.DIRECTORY), "mkdir " + p);
            } catch (FileAlreadyExistsException e) {
                CreelNode existing = lookupOrNull(p);
                if (existing == null && attempt < 3) {
                    continue; // removed in between: try again
                }
                if (existing != null && existing.type().isContainer()) {
                    return null;
                }
                throw new FileAlreadyExistsException(p + " exists and is a "
                        + (existing == null ? "node" : existing.type().displayName()) + ", not a directory");
            } catch (FileNotFoundException e) {
                if (attempt >= 3) {
                    throw e;
                }
                mkdirsInternal(name.parent().toString());
            }
        }
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
        String s = creelPath(src);
        String d = creelPath(dst);
        statistics.incrementWriteOps(1);
        PathName sn = parse(s);
        PathName dn = parse(d);
        if (sn.isRoot()) {
            return false;
        }
        CreelNode source = lookupOrNull(s);
        if (source == null) {
            return false;
        }
        if (sn.equals(dn)) {
            return true; // a rename onto itself changes nothing
        }
        if (dn.isWithin(sn)) {
            return false; // into its own subtree
        }
        String target = d;
        CreelNode dest = lookupOrNull(d);
        if (dest != null) {
            if (!dest.type().isContainer()) {
                return false; // onto an existing file: HDFS refuses with false
            }
            PathName inside = dn.child(sn.name());
            if (inside.equals(sn)) {
                return true; // already there
            }
            if (lookupOrNull(inside.toString()) != null) {
                return false;
            }
            target = inside.toString();
        } else {
            CreelNode parent = lookupOrNull(dn.parent().toString());
            if (parent == null || !parent.type().isContainer()) {
                return false; // missing parent, or parent is a file
            }
        }
        try {
            await(client.move(s, target), "rename " + s + " to " + target);
            return true;
        } catch (FileNotFoundException | FileAlreadyExistsException | ParentNotDirectoryException e) {
            return false; // the namespace changed meanwhile, or the target container refuses the type
        }
    }

    @Override
    public boolean delete(Path f, boolean recursive) throws IOException {
        String p = creelPath(f);
        statistics.incrementWriteOps(1);
        if (parse(p).isRoot()) {
            // The root cannot be removed (like HDFS); a non-recursive delete of a non-empty root is refused loudly.
            if (!recursive && listStatus(f).length > 0) {
                throw new PathIsNotEmptyDirectoryException("/ is not empty");
            }
            return false;
        }
        try {
            await(client.delete(p, recursive), "delete " + p);
            return true;
        } catch (FileNotFoundException e) {
            return false;
        } catch (PathIsNotEmptyDirectoryException e) {
            throw e;
        } catch (ParentNotDirectoryException e) {
            return false; // a path through a File does not exist
        }
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
        String p = creelPath(f);
        statistics.incrementReadOps(1);
        List<FileStatus> all = list(p);
        all.sort(Comparator.comparing(FileStatus::getPath));
        return all.toArray(new FileStatus[0]);
    }

    private List<FileStatus> list(String p) throws IOException {
        List<DirectoryEntry> entries;
        try {
            entries = await(client.list(p), "list " + p);
        } catch (ParentNotDirectoryException e) {
            CreelNode node = lookup(p); // listing a file lists the file
            List<FileStatus> one = new ArrayList<>(1);
            one.add(status(p, node.info()));
            return one;
        }
        List<FileStatus> out = new ArrayList<>(entries.size());
        for (DirectoryEntry e : entries) {
            out.add(status(e.path(), e.info()));
        }
        return out;
    }

    /**
     * The listing, handed out one status at a time. Creel lists a container in one pass over its
     * records with every child's lookup in flight at once, so the iterator holds the listing made
     * when it was called.
     */
    @Override
    public RemoteIterator<FileStatus> listStatusIterator(Path f) throws IOException {
        String p = creelPath(f);
        statistics.incrementReadOps(1);
        List<FileStatus> all = list(p);
        return new RemoteIterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return next < all.size();
            }

            @Override
            public FileStatus next() {
                if (next >= all.size()) {
                    throw new NoSuchElementException("listing of " + p + " has " + all.size() + " entries");
                }
                return all.get(next++);
            }
        };
    }

    // ---- blocks and capacity ----

    @Override
    public BlockLocation[] getFileBlockLocations(FileStatus file, long start, long len) throws IOException {
        if (file == null) {
            return null;
        }
        if (start < 0 || len < 0) {
            throw new IllegalArgumentException("Invalid start or len parameter");
        }
        if (file.isDirectory() || file.getLen() <= start) {
            return new BlockLocation[0];
        }
        String p = creelPath(file.getPath());
        CreelNode node = lookup(p);
        List<io.creel.common.protocol.BlockLocation> locations =
                await(client.blockLocations(node, start, len), "block locations of " + p);
        BlockLocation[] out = new BlockLocation[locations.size()];
        io.creel.common.namespace.BlockLayout layout = node.info().layout(blockSize); // block 0 may be short
        for (int i = 0; i < out.length; i++) {
            io.creel.common.protocol.BlockLocation l = locations.get(i);
            long offset = layout.start(l.blockIndex());
            long length = Math.min(layout.size(l.blockIndex()), node.length() - offset);
            String host = l.server().host();
            out[i] = new BlockLocation(new String[] {host + ":" + l.server().port()}, new String[] {host},
                    new String[] {"/default-rack/" + host + ":" + l.server().port()}, offset, length);
        }
        return out;
    }

    /**
     * Capacity and use of the storage servers, in bytes. Each server counts once (by address);
     * its used blocks are summed over the namenodes that allocate from it.
     */
    @Override
    public FsStatus getStatus(Path p) throws IOException {
        List<StatusReply> replies = await(client.status(), "cluster status");
        Map<String, long[]> byServer = new HashMap<>(); // address -> {capacity, used}
        for (StatusReply r : replies) {
            for (ServerStatus s : r.servers()) {
                long bs = s.server().blockSize();
                long[] v = byServer.computeIfAbsent(s.server().address(), k -> new long[2]);
                v[0] = Math.max(v[0], s.server().blockCount() * bs);
                v[1] += s.usedBlocks() * bs;
            }
        }
        long capacity = 0;
        long used = 0;
        for (long[] v : byServer.values()) {
            capacity += v[0];
            used += Math.min(v[0], v[1]);
        }
        return new FsStatus(capacity, used, capacity - used);
    }

    // ---- capabilities and unsupported operations ----

    @Override
    public boolean hasPathCapability(Path path, String capability) throws IOException {
        String c = PathCapabilitiesSupport.validatePathCapabilityArgs(makeQualified(path), capability);
        return switch (c.toLowerCase(Locale.ROOT)) {
            case CommonPathCapabilities.FS_APPEND, StreamCapabilities.HFLUSH, StreamCapabilities.HSYNC -> true;
            case CommonPathCapabilities.FS_PERMISSIONS, CommonPathCapabilities.FS_CHECKSUMS,
                 CommonPathCapabilities.FS_CONCAT, CommonPathCapabilities.FS_TRUNCATE,
                 CommonPathCapabilities.FS_SYMLINKS, CommonPathCapabilities.FS_PATHHANDLES -> false;
            default -> super.hasPathCapability(path, capability);
        };
    }

    /** The node's mode (its read and write bits are enforced); ignored where the namenode keeps no permissions. */
    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
        String path = creelPath(p);
        setAccess(path, "", "", permission.toShort() & io.creel.common.protocol.NodeAccess.ALL, "setPermission");
    }

    /**
     * The node's owner (administrators only) and group; {@code null} keeps either. Ignored where the
     * namenode keeps no permissions.
     */
    @Override
    public void setOwner(Path p, String username, String groupname) throws IOException {
        String path = creelPath(p);
        setAccess(path, username == null ? "" : username, groupname == null ? "" : groupname,
                io.creel.common.protocol.SetAccessRequest.KEEP, "setOwner");
    }

    private void setAccess(String path, String owner, String group, int mode, String what) throws IOException {
        try {
            io.creel.client.Futures.await(client.setAccess(path, owner, group, mode), timeout, what + " " + path);
        } catch (CreelException e) {
            if (e.code() != io.creel.common.error.ErrorCode.UNSUPPORTED) {
                throw HadoopErrors.toIOException(e);
            }
            // A namenode without permissions: as HDFS with dfs.permissions.enabled=false, nothing to change.
        }
    }

    /** Creel keeps no access or modification times that a caller could set. */
    @Override
    public void setTimes(Path p, long mtime, long atime) throws IOException {
        throw new UnsupportedOperationException(creelPath(p) + ": Creel does not support setting times "
                + "(modification time is kept by the namenode, access time is not kept)");
    }

    @Override
    public void close() throws IOException {
        try {
            super.close();
        } finally {
            if (shared != null) {
                shared.close();
            }
        }
    }

    private static PathName parse(String p) throws IOException {
        try {
            return PathName.parse(p);
        } catch (CreelException e) {
            throw HadoopErrors.toIOException(e);
        }
    }

    @Override
    public String toString() {
        return "CreelFileSystem{" + uri + "}";
    }
}
