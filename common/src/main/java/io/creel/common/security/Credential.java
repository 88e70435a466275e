package io.creel.common.security;

import io.creel.common.error.CreelException;
import io.creel.common.error.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A named credential: an identity's name, the id of this issue of it, and its key. An administrator
 * issues one with {@code bin/creel admin credential create} ({@link #issue}), which writes it to a file
 * the user points {@link SecurityKeys#CREDENTIAL_FILE} at; a client holding it proves the name in
 * the authentication {@link Handshake} as a daemon proves the cluster secret. The key is derived from
 * the cluster secret, the name and the id ({@link ClusterSecret#deriveKey}), so any daemon can check
 * it; the namenode keeps which ids are current (revoking one removes it there).
 *
 * <p>The file, a few {@code key=value} lines:
 * <pre>
 *   identity=alice
 *   id=0123456789abcdef0123456789abcdef
 *   secret=BASE64 of the 32-byte key
 * </pre>
 */
public final class Credential {
    /** Bytes of a credential's id. */
    public static final int ID_BYTES = 16;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String name;
    private final byte[] id;
    private final ClusterSecret key;

    private Credential(String name, byte[] id, ClusterSecret key) {
        this.name = name;
        this.id = id;
        this.key = key;
    }

    /**
     * Issues a new credential for {@code name} under {@code cluster}'s secret, with a fresh random id.
     *
     * @throws CreelException INVALID_ARGUMENT for a name that cannot be an identity's, or the superuser's
     */
    public static Credential issue(ClusterSecret cluster, String name) {
        Identity.checkName(name);
        if (name.equals(Identity.SUPERUSER)) {
            throw new CreelException(ErrorCode.INVALID_ARGUMENT, name + " is the cluster's own identity: it is "
                    + "proven with the cluster secret, not a credential");
        }
        byte[] id = new byte[ID_BYTES];
        RANDOM.nextBytes(id);
        return new Credential(name, id, ClusterSecret.ofKey(cluster.file(), cluster.deriveKey(name, id)));
    }

    /**
     * Reads a credential file. Fails CONFIGURATION, naming the file and the key
     * ({@link SecurityKeys#CREDENTIAL_FILE}), when it is missing, readable by every user, or not a
     * credential (a line missing or malformed).
     */
    public static Credential read(Path file) {
        Map<String, String> fields = new LinkedHashMap<>();
        try {
            if (Files.getFileStore(file).supportsFileAttributeView("posix")) {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
                if (perms.contains(PosixFilePermission.OTHERS_READ)) {
                    throw bad(file, "it is readable by every user; make it private (chmod 600 " + file + ")");
                }
            }
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String t = line.trim();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                int eq = t.indexOf('=');
                if (eq <= 0) {
                    throw bad(file, "line \"" + cut(t) + "\" is not key=value");
                }
                fields.put(t.substring(0, eq).trim(), t.substring(eq + 1).trim());
            }
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot read the credential file " + file + " ("
                    + SecurityKeys.CREDENTIAL_FILE.name() + "): " + e, e);
        }
        String name = field(file, fields, "identity");
        try {
            Identity.checkName(name);
        } catch (CreelException e) {
            throw bad(file, e.getMessage());
        }
        byte[] id;
        byte[] key;
        try {
            id = HexFormat.of().parseHex(field(file, fields, "id"));
            key = Base64.getDecoder().decode(field(file, fields, "secret"));
        } catch (IllegalArgumentException e) {
            throw bad(file, "its id is not hex or its secret not base64: " + e.getMessage());
        }
        if (id.length != ID_BYTES || key.length != 32) {
            throw bad(file, "its id must be " + ID_BYTES + " bytes and its secret 32 (it has " + id.length + " and "
                    + key.length + ")");
        }
        return new Credential(name, id, ClusterSecret.ofKey(file, key));
    }

    /**
     * Writes this credential to a new file {@code file}, readable by its owner only (the only time
     * its secret is shown); fails CONFIGURATION if the file exists.
     */
    public void write(Path file) {
        String text = "# Creel credential of identity " + name + ": keep it private; point "
                + SecurityKeys.CREDENTIAL_FILE.name() + " at this file\n"
                + "identity=" + name + "\nid=" + idText() + "\nsecret="
                + Base64.getEncoder().encodeToString(key.rawKey()) + "\n";
        try {
            if (Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix")) {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } else {
                Files.createFile(file);
            }
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING);
        } catch (FileAlreadyExistsException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "credential file " + file + " exists already; "
                    + "choose another file (a credential's secret is written once)");
        } catch (IOException e) {
            throw new CreelException(ErrorCode.CONFIGURATION, "cannot write the credential file " + file + ": " + e, e);
        }
    }

    /** The identity this credential proves. */
    public String name() {
        return name;
    }

    /** This issue's id, as 32 hex digits (what the namenode keeps and lists). */
    public String idText() {
        return HexFormat.of().formatHex(id);
    }

    /** A copy of the id's bytes. */
    public byte[] id() {
        return Arrays.copyOf(id, id.length);
    }

    /** The key proofs are made with. */
    ClusterSecret key() {
        return key;
    }

    private static String field(Path file, Map<String, String> fields, String key) {
        String v = fields.get(key);
        if (v == null || v.isEmpty()) {
            throw bad(file, "it has no " + key + "= line");
        }
        return v;
    }

    private static CreelException bad(Path file, String why) {
        return new CreelException(ErrorCode.CONFIGURATION, "credential file " + file + " ("
                + SecurityKeys.CREDENTIAL_FILE.name() + ") is not a Creel credential: " + why);
    }

    private static String cut(String s) {
        return s.length() > 40 ? s.substring(0, 40) + "..." : s;
    }

    @Override
    public String toString() {
        return "credential " + name + " #" + idText();
    }
}
