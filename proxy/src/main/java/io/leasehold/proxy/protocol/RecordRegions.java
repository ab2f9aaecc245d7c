package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
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

    /**
     * Made at the first record set noted, and small: every request has two of these, one of which
     * usually notes nothing (a Produce's responses carry no records), and most note a few sets, so
     * the default 64-slot table was built and dropped twice per request.
     */
    private Map<BaseRecords, Region> regions;

    /** Notes that {@code records} are the {@code length} bytes of {@code frame} from {@code index}. */
    synchronized void add(BaseRecords records, ByteBuf frame, int index, int length) {
        if (regions == null) {
            regions = new IdentityHashMap<>(4);
        }
        regions.put(records, new Region(frame, index, length));
    }

    /** A retained slice of the frame bytes {@code records} were decoded from, or null if they were not. */
    synchronized ByteBuf retainedSlice(BaseRecords records) {
        Region region = regions == null ? null : regions.get(records);
        return region == null ? null : region.frame().retainedSlice(region.index(), region.length());
    }

    /** True if no record set has been noted: encoding needs no slices. */
    synchronized boolean isEmpty() {
        return regions == null;
    }
}
