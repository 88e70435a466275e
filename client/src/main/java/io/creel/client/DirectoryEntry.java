package io.creel.client;

import io.creel.common.protocol.NodeInfo;

/**
 * One child in a listing.
 *
 * @param name the child's name
 * @param path the child's absolute path
 * @param info the child as the namenode described it when the listing looked it up
 */
public record DirectoryEntry(String name, String path, NodeInfo info) {
}
