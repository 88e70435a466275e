package io.creel.namenode.namespace;

import java.util.List;

/**
 * One walk of the namespace for {@link Namespace#replicationWork}: up to the asked number of tasks,
 * and in all the blocks short of their factor, the blocks without any live copy (lost), and the
 * short blocks of nodes still being written (repaired once closed).
 */
public record ReplicationScan(List<RepairTask> tasks, long underReplicated, long lost, long waitingForWriter) {
}
