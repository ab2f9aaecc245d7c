package io.leasehold.audit;

import java.util.List;

/**
 * The audit of one partition.
 *
 * @param startOffset  lowest log start offset any pass reported (-1 if no pass read it)
 * @param endOffset    highest end offset any pass reported (-1 if no pass read it)
 * @param found        distinct offsets at which some record was read
 * @param acked        records the journal says were acknowledged (or delivered) in this partition
 * @param ackedMissing acknowledged records not found in this partition
 * @param duplicates   extra copies: a record found at more than one offset counts once per extra offset
 * @param overlaps     offsets claimed by more than one record (by acknowledgements or reads)
 * @param gaps         offsets between start and end at which no record was read
 * @param misplaced    acknowledged records found, but not at the offset they were acknowledged at
 * @param unexpected   audited records found that the journal never sent
 * @param disorder     records a pass delivered at an offset not above the previous one
 * @param examples     a few concrete findings, for the report
 */
public record PartitionAudit(String topic, int partition, long startOffset, long endOffset, int found, int acked,
                             int ackedMissing, int duplicates, int overlaps, int gaps, int misplaced,
                             int unexpected, int disorder, List<String> examples) {

    /** Copies the examples. */
    public PartitionAudit {
        examples = List.copyOf(examples);
    }

    /** Whether nothing is wrong here, counting duplicates only when they are not tolerated. */
    public boolean clean(boolean duplicatesTolerated) {
        return ackedMissing == 0 && overlaps == 0 && gaps == 0 && misplaced == 0 && unexpected == 0 && disorder == 0
                && (duplicatesTolerated || duplicates == 0);
    }
}
