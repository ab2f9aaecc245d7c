package io.leasehold.broker.storage;

import java.util.List;

/**
 * A partition's committed state read from etcd in one transaction: the next offset to assign
 * (also the high watermark: only committed records are ever served) and its segments, ordered by
 * base offset.
 */
public record PartitionIndex(long nextOffset, List<SegmentRef> segments) {

    public PartitionIndex {
        segments = List.copyOf(segments);
    }

    /** The first offset still stored. */
    public long logStartOffset() {
        return segments.isEmpty() ? nextOffset : Math.min(segments.get(0).baseOffset(), nextOffset);
    }
}
