package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.kafka.common.record.internal.BaseRecords;

/**
 * Where each record set decoded from frames (brokers' responses, a client's request) lies in its
 * frame, so that a message encoded again can carry those bytes as slices of the frames instead of
 * copies. Holds no reference of its own: the frames must stay retained until the message that
 * uses them has been encoded. Record sets not decoded here (an empty set built by the proxy) are unknown to it.
 * Safe to fill from several event loops.
 */
public final class RecordRegions {
    private record Region(ByteBuf frame, int index, int length) {
    }

    private final Map<BaseRecords, Region> regions = Collections.synchronizedMap(new IdentityHashMap<>());

    /** Notes that {@code records} are the {@code length} bytes of {@code frame} from {@code index}. */
    void add(BaseRecords records, ByteBuf frame, int index, int length) {
        regions.put(records, new Region(frame, index, length));
    }

    /** A retained slice of the frame bytes {@code records} were decoded from, or null if they were not. */
    ByteBuf retainedSlice(BaseRecords records) {
        Region region = regions.get(records);
        return region == null ? null : region.frame().retainedSlice(region.index(), region.length());
    }

    /** True if no record set has been noted: encoding needs no slices. */
    boolean isEmpty() {
        return regions.isEmpty();
    }
}
