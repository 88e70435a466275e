package io.creel.storage.local.tier;

import io.creel.common.conf.CreelConf;
import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import io.creel.storage.local.LocalTierKeys;
import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a tier's region, tag and data files and their directory private to the storage server's
 * user and, when {@link LocalTierKeys#FILES_GROUP} names one, that group (whose members' same-host
 * clients may then map and open them): files {@code rw-------} or {@code rw-rw----}, directories
 * {@code rwx------} or {@code rwxr-x---}. Files are created with these permissions, never with the
 * umask's and then narrowed, so no other user can open one in between and keep the descriptor.
 */
final class PrivateFiles {
    private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);

    private final GroupPrincipal group;

    private PrivateFiles(GroupPrincipal group) {
        this.group = group;
    }

    /** The privacy {@code conf} asks for; an unknown group is a CONFIGURATION error naming the key. */
    static PrivateFiles of(CreelConf conf) {
        String name = conf.get(LocalTierKeys.FILES_GROUP);
        if (name.isEmpty()) {
            return new PrivateFiles(null);
        }
        try {
            return new PrivateFiles(FileSystems.getDefault().getUserPrincipalLookupService()
                    .lookupPrincipalByGroupName(name));
        } catch (IOException | UnsupportedOperationException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, LocalTierKeys.FILES_GROUP.name() + "=" + name
                    + ": no such group on this host (" + e + ")", e);
        }
    }

    private Set<PosixFilePermission> filePermissions() {
        return PosixFilePermissions.fromString(group == null ? "rw-------" : "rw-rw----");
    }

    /**
     * Narrows a tier's directory (which the server has just made sure exists). One the server does
     * not own (a shared parent someone else made) is left alone with a warning: the files in it are
     * private all the same.
     */
    void directory(Path dir) {
        PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class);
        if (view == null) {
            return; // not a POSIX filesystem: nothing to narrow
        }
        try {
            UserPrincipal me = dir.getFileSystem().getUserPrincipalLookupService()
                    .lookupPrincipalByName(System.getProperty("user.name"));
            if (!view.readAttributes().owner().equals(me)) {
                LOG.warn("{} belongs to {}, not to this server's user {}: its permissions are left as they are "
                        + "(the files in it are private)", dir, view.readAttributes().owner().getName(), me.getName());
                return;
            }
            if (group != null) {
                view.setGroup(group);
            }
            view.setPermissions(PosixFilePermissions.fromString(group == null ? "rwx------" : "rwxr-x---"));
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot make " + dir + " private: " + e, e);
        }
    }

    /** Creates {@code file} empty and private, or narrows it if it exists already. */
    void create(Path file) throws IOException {
        if (Files.getFileAttributeView(file.getParent(), PosixFileAttributeView.class) == null) {
            if (!Files.exists(file)) {
                Files.createFile(file);
            }
            return;
        }
        if (Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            restrict(file);
            return;
        }
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        restrict(file);
    }

    /** Narrows an existing file (one a persistent server made before, perhaps with the umask). */
    void restrict(Path file) throws IOException {
        PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class,
                LinkOption.NOFOLLOW_LINKS);
        if (view == null) {
            return;
        }
        if (group != null) {
            view.setGroup(group);
        }
        view.setPermissions(filePermissions());
    }
}
