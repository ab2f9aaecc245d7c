package io.leasehold.proxy.testing;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;

/** Record sets for encoding tests: keyed records whose values say where they came from. */
public final class TestRecords {
    private TestRecords() {
    }

    /** {@code count} uncompressed records, key {@code key-i}, value {@code prefix-i-} padded with {@code padding} x's. */
    public static MemoryRecords records(String prefix, int count, int padding) {
        SimpleRecord[] records = new SimpleRecord[count];
        for (int i = 0; i < count; i++) {
            records[i] = new SimpleRecord(("key-" + i).getBytes(StandardCharsets.UTF_8),
                    (prefix + "-" + i + "-" + "x".repeat(padding)).getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }
}
