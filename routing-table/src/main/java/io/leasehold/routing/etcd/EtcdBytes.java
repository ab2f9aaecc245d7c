package io.leasehold.routing.etcd;

import io.etcd.jetcd.ByteSequence;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** The contract's keys and values are UTF-8 text; this is the one place that converts them. */
public final class EtcdBytes {

    private EtcdBytes() {
    }

    public static ByteSequence of(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    public static String text(ByteSequence bytes) {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** The first key after every key that starts with {@code prefix}: the end of a prefix range. */
    public static ByteSequence prefixEnd(String prefix) {
        byte[] end = prefix.getBytes(StandardCharsets.UTF_8);
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return ByteSequence.from(Arrays.copyOf(end, i + 1));
            }
        }
        return ByteSequence.from(new byte[] {0});
    }
}
