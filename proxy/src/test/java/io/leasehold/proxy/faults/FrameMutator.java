package io.leasehold.proxy.faults;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

/**
 * Seeded mutations of a valid request frame: flipped bytes, a truncated body (length adjusted
 * or not), a lying length field, a changed API key or version, appended garbage. Deterministic
 * for a given {@link Random}, so a failing case is reproduced from the seed.
 */
final class FrameMutator {

    /** What was done to the frame. */
    enum Kind { FLIP_BYTES, TRUNCATE_BODY, CUT_FRAME, LIE_ABOUT_LENGTH, SWAP_API_KEY, SWAP_VERSION, APPEND_GARBAGE }

    /**
     * A mutated frame.
     *
     * @param complete whether the length field matches the bytes sent (a proxy may then answer;
     *                 otherwise it can only wait for bytes that never come, or close)
     */
    record Mutation(Kind kind, byte[] bytes, boolean complete) {
    }

    private final Random random;

    FrameMutator(Random random) {
        this.random = random;
    }

    Mutation mutate(byte[] frame) {
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        byte[] bytes = frame.clone();
        int body = bytes.length - 4;
        return switch (kind) {
            case FLIP_BYTES -> {
                int flips = 1 + random.nextInt(8);
                for (int i = 0; i < flips; i++) {
                    int at = 4 + random.nextInt(body);
                    bytes[at] = (byte) (bytes[at] ^ (1 + random.nextInt(255)));
                }
                yield new Mutation(kind, bytes, true);
            }
            case TRUNCATE_BODY -> {
                int keep = random.nextInt(body);
                byte[] cut = Arrays.copyOf(bytes, 4 + keep);
                ByteBuffer.wrap(cut).putInt(0, keep);
                yield new Mutation(kind, cut, true);
            }
            case CUT_FRAME -> new Mutation(kind, Arrays.copyOf(bytes, 4 + random.nextInt(body)), false);
            case LIE_ABOUT_LENGTH -> {
                int lie = switch (random.nextInt(3)) {
                    case 0 -> -1 - random.nextInt(Integer.MAX_VALUE);
                    case 1 -> body + 1 + random.nextInt(Integer.MAX_VALUE - body);
                    default -> random.nextInt(body);
                };
                ByteBuffer.wrap(bytes).putInt(0, lie);
                yield new Mutation(kind, bytes, lie >= 0 && lie <= body);
            }
            case SWAP_API_KEY -> {
                ByteBuffer.wrap(bytes).putShort(4, (short) random.nextInt(Short.MAX_VALUE + 1));
                yield new Mutation(kind, bytes, true);
            }
            case SWAP_VERSION -> {
                ByteBuffer.wrap(bytes).putShort(6, (short) (random.nextInt(40) - 4));
                yield new Mutation(kind, bytes, true);
            }
            case APPEND_GARBAGE -> {
                byte[] longer = Arrays.copyOf(bytes, bytes.length + 1 + random.nextInt(64));
                for (int i = bytes.length; i < longer.length; i++) {
                    longer[i] = (byte) random.nextInt(256);
                }
                yield new Mutation(kind, longer, true);
            }
        };
    }
}
