package io.leasehold.routing.keys;

import java.util.OptionalInt;

/** The value of a partition or group lease key: the owning broker id as a plain decimal string. */
public final class OwnerValue {

    private OwnerValue() {
    }

    public static String encode(int brokerId) {
        if (brokerId < 0) {
            throw new IllegalArgumentException("broker id must not be negative, got " + brokerId);
        }
        return Integer.toString(brokerId);
    }

    /** The broker id, or empty if the value is not a plain non-negative decimal int. */
    public static OptionalInt parse(String value) {
        return KeySchema.parseNonNegativeInt(value);
    }
}
