package io.leasehold.audit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Compares what a workload produced (its journal) with what read passes returned, per partition.
 *
 * <p>An offset is "claimed twice" (an overlap) when two different records are attached to it:
 * two acknowledgements that name the same offset, an acknowledgement and a read that disagree,
 * or two read passes that disagree. Acknowledged offsets come from the brokers' own answers, so
 * two brokers handing out one offset range is caught even when one segment shadows the other
 * and a consumer can only ever see one of them; the shadowed acknowledged records also show up
 * as missing.
 *
 * <p>With the reference broker's legacy mode ({@code --ownership none}) this is exactly what a
 * read shows: both brokers index their segment under the same base offset and the later plain
 * put wins, so one broker's acknowledged records vanish (missing, with their offsets claimed
 * twice), and the partition's next offset flips between the brokers' counters, so a pass may be
 * refused as out of range below offsets that were acknowledged (a read error). Offsets inside
 * the end offset that no pass returns are gaps.
 */
public final class OffsetAuditor {

    private static final int EXAMPLES_PER_FINDING = 3;

    private final boolean duplicatesTolerated;

    /**
     * @param duplicatesTolerated whether records found at several offsets are acceptable (a
     *                            non-idempotent client's retry after an unknown outcome explains them)
     */
    public OffsetAuditor(boolean duplicatesTolerated) {
        this.duplicatesTolerated = duplicatesTolerated;
    }

    /** Reads every journaled topic through each address (one pass each) and audits the result. */
    public AuditVerdict readAndAudit(TopicReader reader, List<String> bootstrapAddresses, Collection<JournalEntry> journal) {
        Set<String> topics = journal.stream().map(JournalEntry::topic).collect(Collectors.toCollection(TreeSet::new));
        List<ReadPass> passes = new ArrayList<>();
        for (String address : bootstrapAddresses) {
            passes.add(reader.read(address, topics));
        }
        return audit(journal, passes);
    }

    /** Audits a journal against read passes. Pure: no I/O. */
    public AuditVerdict audit(Collection<JournalEntry> journal, List<ReadPass> passes) {
        Map<PartitionKey, List<JournalEntry>> acked = new TreeMap<>();
        Set<RecordIdentity> journaled = new HashSet<>();
        for (JournalEntry entry : journal) {
            journaled.add(entry.identity());
            if (entry.confirmed()) {
                acked.computeIfAbsent(new PartitionKey(entry.topic(), entry.partition()), key -> new ArrayList<>()).add(entry);
            }
        }
        Map<PartitionKey, List<PartitionRead>> reads = new TreeMap<>();
        List<String> readErrors = new ArrayList<>();
        for (ReadPass pass : passes) {
            if (pass.error() != null) {
                readErrors.add(pass.error());
            }
            for (PartitionRead read : pass.partitions()) {
                reads.computeIfAbsent(new PartitionKey(read.topic(), read.partition()), key -> new ArrayList<>()).add(read);
                if (!read.complete() && pass.error() == null) {
                    readErrors.add(pass.source() + ": " + read.topic() + "-" + read.partition() + " not read to its end offset");
                }
            }
        }
        Set<PartitionKey> keys = new TreeSet<>(acked.keySet());
        keys.addAll(reads.keySet());
        List<PartitionAudit> audits = new ArrayList<>();
        for (PartitionKey key : keys) {
            audits.add(auditPartition(key, acked.getOrDefault(key, List.of()), reads.getOrDefault(key, List.of()), journaled));
        }
        long confirmed = journal.stream().filter(JournalEntry::confirmed).count();
        return new AuditVerdict(audits, journal.size(), confirmed, count(journal, SendOutcome.FAILED),
                count(journal, SendOutcome.UNCONFIRMED), count(journal, SendOutcome.SENT), readErrors, duplicatesTolerated);
    }

    private PartitionAudit auditPartition(PartitionKey key, List<JournalEntry> acked, List<PartitionRead> reads,
                                          Set<RecordIdentity> journaled) {
        Map<Long, Set<String>> claims = new TreeMap<>();
        Map<RecordIdentity, SortedSet<Long>> foundAt = new HashMap<>();
        SortedSet<Long> observed = new TreeSet<>();
        Examples examples = new Examples();
        int disorder = 0;
        for (PartitionRead read : reads) {
            long previous = -1;
            for (ObservedRecord record : read.records()) {
                if (record.offset() <= previous) {
                    disorder++;
                    examples.add("disorder", "via " + record.source() + " offset " + record.offset() + " after " + previous);
                }
                previous = Math.max(previous, record.offset());
                observed.add(record.offset());
                claims.computeIfAbsent(record.offset(), offset -> new LinkedHashSet<>())
                        .add(record.claimKey() + " (read via " + record.source() + ")");
                if (record.identity() != null) {
                    foundAt.computeIfAbsent(record.identity(), id -> new TreeSet<>()).add(record.offset());
                }
            }
        }
        for (JournalEntry entry : acked) {
            if (entry.acked()) {
                claims.computeIfAbsent(entry.offset(), offset -> new LinkedHashSet<>()).add(entry.identity() + " (acked)");
            }
        }
        int overlaps = 0;
        for (Map.Entry<Long, Set<String>> claim : claims.entrySet()) {
            Set<String> claimants = claim.getValue().stream().map(OffsetAuditor::claimant).collect(Collectors.toSet());
            if (claimants.size() > 1) {
                overlaps++;
                examples.add("overlap", "offset " + claim.getKey() + " claimed by " + claim.getValue());
            }
        }
        int duplicates = 0;
        int unexpected = 0;
        for (Map.Entry<RecordIdentity, SortedSet<Long>> found : foundAt.entrySet()) {
            if (found.getValue().size() > 1) {
                duplicates += found.getValue().size() - 1;
                examples.add("duplicate", found.getKey() + " found at offsets " + found.getValue());
            }
            if (!journaled.contains(found.getKey())) {
                unexpected++;
                examples.add("unexpected", found.getKey() + " at " + found.getValue() + " was never journaled");
            }
        }
        int missing = 0;
        int misplaced = 0;
        for (JournalEntry entry : acked) {
            SortedSet<Long> offsets = foundAt.get(entry.identity());
            if (offsets == null) {
                missing++;
                examples.add("missing", entry.identity() + (entry.acked() ? " acked at offset " + entry.offset()
                        : " delivered (offset not reported)") + " not found");
            } else if (entry.acked() && !offsets.contains(entry.offset())) {
                misplaced++;
                examples.add("misplaced", entry.identity() + " acked at offset " + entry.offset() + " found at " + offsets);
            }
        }
        long start = reads.stream().mapToLong(PartitionRead::startOffset).min().orElse(-1);
        long end = reads.stream().mapToLong(PartitionRead::endOffset).max().orElse(-1);
        int gaps = 0;
        for (long offset = start; offset >= 0 && offset < end; offset++) {
            if (!observed.contains(offset)) {
                gaps++;
                examples.add("gap", "no record at offset " + offset);
            }
        }
        return new PartitionAudit(key.topic(), key.partition(), start, end, observed.size(), acked.size(), missing,
                duplicates, overlaps, gaps, misplaced, unexpected, disorder, examples.list());
    }

    /** The record a claim names, without where the claim came from. */
    private static String claimant(String claim) {
        return claim.substring(0, claim.indexOf(" ("));
    }

    private static long count(Collection<JournalEntry> journal, SendOutcome outcome) {
        return journal.stream().filter(entry -> entry.outcome() == outcome).count();
    }

    private record PartitionKey(String topic, int partition) implements Comparable<PartitionKey> {
        @Override
        public int compareTo(PartitionKey other) {
            int byTopic = topic.compareTo(other.topic);
            return byTopic != 0 ? byTopic : Integer.compare(partition, other.partition);
        }
    }

    /** Keeps the first few findings of each kind. */
    private static final class Examples {
        private final Map<String, List<String>> byKind = new TreeMap<>();

        void add(String kind, String finding) {
            List<String> kept = byKind.computeIfAbsent(kind, k -> new ArrayList<>());
            if (kept.size() < EXAMPLES_PER_FINDING) {
                kept.add(kind + ": " + finding);
            }
        }

        List<String> list() {
            return byKind.values().stream().flatMap(List::stream).toList();
        }
    }
}
