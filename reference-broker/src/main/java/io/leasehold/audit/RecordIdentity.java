package io.leasehold.audit;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * Who wrote a record: a producer id and that producer's sequence number. Audited records carry
 * it at the start of their value as {@code lh1|<producer>|<sequence>|} followed by padding, so
 * any client (a Java producer, {@code kcat}) can write audited records and any consumer can
 * recognise them.
 */
public record RecordIdentity(String producerId, long sequence) implements Comparable<RecordIdentity> {

    private static final String MAGIC = "lh1|";
    private static final byte PAD = 'x';

    /** Validates that the producer id can be embedded in a value and the sequence is not negative. */
    public RecordIdentity {
        Objects.requireNonNull(producerId, "producerId");
        if (producerId.isEmpty() || producerId.indexOf('|') >= 0 || producerId.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("producer id must be non-empty without '|' or whitespace: '" + producerId + "'");
        }
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence must not be negative: " + sequence);
        }
    }

    /** The value text without padding, e.g. {@code lh1|p3|42|}. */
    public String valuePrefix() {
        return MAGIC + producerId + '|' + sequence + '|';
    }

    /** The record value: the identity prefix padded with {@code x} up to {@code size} bytes. */
    public byte[] encodeValue(int size) {
        byte[] prefix = valuePrefix().getBytes(StandardCharsets.UTF_8);
        byte[] value = Arrays.copyOf(prefix, Math.max(size, prefix.length));
        Arrays.fill(value, prefix.length, value.length, PAD);
        return value;
    }

    /** Reads the identity from a record value; empty for values that are not audited records. */
    public static Optional<RecordIdentity> parseValue(byte[] value) {
        if (value == null || value.length < MAGIC.length() + 4) {
            return Optional.empty();
        }
        for (int i = 0; i < MAGIC.length(); i++) {
            if (value[i] != MAGIC.charAt(i)) {
                return Optional.empty();
            }
        }
        int producerEnd = indexOf(value, MAGIC.length());
        int sequenceEnd = producerEnd < 0 ? -1 : indexOf(value, producerEnd + 1);
        if (producerEnd <= MAGIC.length() || sequenceEnd <= producerEnd + 1 || sequenceEnd - producerEnd > 20) {
            return Optional.empty();
        }
        String producer = new String(value, MAGIC.length(), producerEnd - MAGIC.length(), StandardCharsets.UTF_8);
        String sequence = new String(value, producerEnd + 1, sequenceEnd - producerEnd - 1, StandardCharsets.US_ASCII);
        if (!sequence.chars().allMatch(Character::isDigit)) {
            return Optional.empty();
        }
        try {
            return Optional.of(new RecordIdentity(producer, Long.parseLong(sequence)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static int indexOf(byte[] value, int from) {
        for (int i = from; i < value.length; i++) {
            if (value[i] == '|') {
                return i;
            }
        }
        return -1;
    }

    @Override
    public int compareTo(RecordIdentity other) {
        int byProducer = producerId.compareTo(other.producerId);
        return byProducer != 0 ? byProducer : Long.compare(sequence, other.sequence);
    }

    @Override
    public String toString() {
        return producerId + '#' + sequence;
    }
}
