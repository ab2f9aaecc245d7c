package io.leasehold.audit;

import java.util.List;

/**
 * One read of the audited topics from their start to their end offsets through one bootstrap
 * address. Several passes through different brokers let the auditor see disagreements.
 *
 * @param error why the pass could not finish, or null
 */
public record ReadPass(String source, List<PartitionRead> partitions, String error) {

    /** Copies the partition list. */
    public ReadPass {
        partitions = List.copyOf(partitions);
    }

    /** Whether every partition was read to its end offset without error. */
    public boolean complete() {
        return error == null && partitions.stream().allMatch(PartitionRead::complete);
    }
}
