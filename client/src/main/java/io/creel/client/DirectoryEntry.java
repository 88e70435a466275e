package io.creel.client;

import io.creel.common.protocol.NodeInfo;
import java.util.Arrays;
import java.util.Objects;

/**
 * One child in a listing.
 *
 * @param name the child's name
 * @param path the child's absolute path
 * @param info the child as the namenode described it when the listing looked it up
 * @param data the child's bytes if the namenode keeps them inline (a small File or KeyValue), else
 *             {@code null}; {@link CreelClient#open(DirectoryEntry)} reads them without a transfer
 */
public record DirectoryEntry(String name, String path, NodeInfo info, byte[] data) {
    /** An entry without inline bytes. */
    public DirectoryEntry(String name, String path, NodeInfo info) {
        this(name, path, info, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DirectoryEntry e && e.name.equals(name) && e.path.equals(path) && e.info.equals(info)
                && Arrays.equals(e.data, data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, path, info) * 31 + Arrays.hashCode(data);
    }

    @Override
    public String toString() {
        return "DirectoryEntry[" + path + ", " + info + (data == null ? "" : ", " + data.length + " bytes inline") + "]";
    }
}
