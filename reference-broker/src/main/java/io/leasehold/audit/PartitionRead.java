package io.leasehold.audit;

import java.util.List;

/**
 * What one read pass returned for one partition, in the order the consumer delivered it.
 *
 * @param startOffset the log start offset the broker reported
 * @param endOffset   the end offset the broker reported before reading; records at or past it are not kept
 * @param complete    whether the read reached {@code endOffset}
 */
public record PartitionRead(String topic, int partition, long startOffset, long endOffset,
                            List<ObservedRecord> records, boolean complete) {

    /** Copies the record list. */
    public PartitionRead {
        records = List.copyOf(records);
    }
}
