package io.creel.common.protocol;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;

/** CREDENTIAL_LIST's reply: every credential a namenode knows, by name. */
public record CredentialList(List<CredentialRecord> credentials) implements Message {
    /** Most credentials one reply carries (a reply frame's size bounds it anyway). */
    public static final int MAX_ENTRIES = 10_000;

    public CredentialList {
        credentials = List.copyOf(credentials);
    }

    @Override
    public void encode(ByteBuf out) {
        out.writeInt(credentials.size());
        credentials.forEach(c -> c.encode(out));
    }

    public static CredentialList decode(ByteBuf in) {
        int n = Wire.readInt(in, "credentials", 0, MAX_ENTRIES);
        List<CredentialRecord> list = new ArrayList<>(Math.min(n, 64));
        for (int i = 0; i < n; i++) {
            list.add(CredentialRecord.read(in));
        }
        Wire.expectEnd(in, "credential list");
        return new CredentialList(list);
    }
}
