package io.leasehold.audit;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * The outcome of an audit: per-partition findings, journal totals and read errors.
 *
 * @param produced            records the journal says were handed to producers
 * @param acked               records acknowledged (with an offset, or delivered without one)
 * @param failed              records whose send failed (outcome unknown: may or may not be present)
 * @param unconfirmed         {@code acks=0} records (no confirmation, absence is no loss)
 * @param pending             sends with no outcome when the journal ended
 * @param readErrors          why a read pass did not reach the end offsets
 * @param duplicatesTolerated whether duplicates (explained by client retries) are accepted
 */
public record AuditVerdict(List<PartitionAudit> partitions, long produced, long acked, long failed, long unconfirmed,
                           long pending, List<String> readErrors, boolean duplicatesTolerated) {

    /** Copies the lists. */
    public AuditVerdict {
        partitions = List.copyOf(partitions);
        readErrors = List.copyOf(readErrors);
    }

    /** True only when every read completed and no partition shows a problem. */
    public boolean clean() {
        return readErrors.isEmpty() && partitions.stream().allMatch(p -> p.clean(duplicatesTolerated));
    }

    /** Records found over all partitions. */
    public int found() {
        return sum(PartitionAudit::found);
    }

    /** Acknowledged records missing over all partitions. */
    public int ackedMissing() {
        return sum(PartitionAudit::ackedMissing);
    }

    /** Extra copies over all partitions. */
    public int duplicates() {
        return sum(PartitionAudit::duplicates);
    }

    /** Offsets claimed twice over all partitions. */
    public int overlaps() {
        return sum(PartitionAudit::overlaps);
    }

    /** Skipped offsets over all partitions. */
    public int gaps() {
        return sum(PartitionAudit::gaps);
    }

    /** Acknowledged records found elsewhere than their acknowledged offset. */
    public int misplaced() {
        return sum(PartitionAudit::misplaced);
    }

    /** Audited records nobody journaled. */
    public int unexpected() {
        return sum(PartitionAudit::unexpected);
    }

    /** Records delivered out of offset order. */
    public int disorder() {
        return sum(PartitionAudit::disorder);
    }

    /** A one-line summary, e.g. for a test failure message or the demo's last line. */
    public String summary() {
        return String.format("%s: produced=%d acked=%d failed=%d unconfirmed=%d pending=%d found=%d "
                        + "acked-missing=%d duplicates=%d overlaps=%d gaps=%d misplaced=%d unexpected=%d disorder=%d%s",
                clean() ? "CLEAN" : "DIRTY", produced, acked, failed, unconfirmed, pending, found(), ackedMissing(),
                duplicates(), overlaps(), gaps(), misplaced(), unexpected(), disorder(),
                readErrors.isEmpty() ? "" : " read-errors=" + readErrors.size());
    }

    /** The per-partition table, examples of findings, read errors and the summary line. */
    public String report() {
        StringBuilder out = new StringBuilder();
        out.append(String.format("%-24s %9s %9s %7s %7s %7s %7s %7s %7s %7s %7s %7s%n", "partition", "start", "end",
                "found", "acked", "missing", "dups", "overlap", "gaps", "misplcd", "unexpct", "disordr"));
        List<String> examples = new ArrayList<>();
        for (PartitionAudit p : partitions) {
            out.append(String.format("%-24s %9d %9d %7d %7d %7d %7d %7d %7d %7d %7d %7d%n",
                    p.topic() + "-" + p.partition(), p.startOffset(), p.endOffset(), p.found(), p.acked(),
                    p.ackedMissing(), p.duplicates(), p.overlaps(), p.gaps(), p.misplaced(), p.unexpected(),
                    p.disorder()));
            p.examples().forEach(example -> examples.add(p.topic() + "-" + p.partition() + ": " + example));
        }
        examples.forEach(example -> out.append("  ").append(example).append(System.lineSeparator()));
        readErrors.forEach(error -> out.append("  read error: ").append(error).append(System.lineSeparator()));
        out.append(summary()).append(System.lineSeparator());
        return out.toString();
    }

    private int sum(ToIntFunction<PartitionAudit> field) {
        return partitions.stream().mapToInt(field).sum();
    }
}
