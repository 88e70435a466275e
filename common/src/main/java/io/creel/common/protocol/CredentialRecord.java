package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/**
 * What a namenode keeps of a named credential (never its secret): CREDENTIAL_PUT's request, and an
 * entry of CREDENTIAL_LIST's reply ({@link CredentialList}).
 *
 * @param name          the identity
 * @param id            the current issue's id (32 hex digits): a connection proving another id is refused
 * @param groups        the identity's groups, for node permissions
 * @param createdMillis when it was issued, epoch milliseconds
 */
public record CredentialRecord(String name, String id, List<String> groups, long createdMillis) implements Message {
    /** Most groups one identity may be in. */
    public static final int MAX_GROUPS = 64;

    public CredentialRecord {
        groups = List.copyOf(groups);
    }

    @Override
    public void encode(ByteBuf out) {
        Wire.writeString(out, name);
        Wire.writeString(out, id);
        out.writeByte(groups.size());
        groups.forEach(g -> Wire.writeString(out, g));
        out.writeLong(createdMillis);
    }

    /** Reads one record (the caller checks the end of its message). */
    static CredentialRecord read(ByteBuf in) {
        String name = Wire.readString(in, "credential.name");
        String id = Wire.readString(in, "credential.id");
        int n = Wire.readByte(in, "credential.groups") & 0xFF;
        if (n > MAX_GROUPS) {
            throw new ProtocolException("a credential has at most " + MAX_GROUPS + " groups, not " + n);
        }
        List<String> groups = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            groups.add(Wire.readString(in, "credential.group"));
        }
        return new CredentialRecord(name, id, groups, Wire.readLong(in, "credential.created"));
    }

    public static CredentialRecord decode(ByteBuf in) {
        CredentialRecord r = read(in);
        Wire.expectEnd(in, "credential record");
        return r;
    }
}
