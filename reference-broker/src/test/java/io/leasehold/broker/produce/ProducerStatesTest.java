package io.leasehold.broker.produce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.broker.storage.RecordBatches.BatchInfo;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

class ProducerStatesTest {

    @Test
    void retriedBatchIsRecognisedWithItsOriginalOffset() {
        ProducerStates states = new ProducerStates();
        BatchInfo first = batch((short) 0, 0, 4);
        states.appended(first, 100);
        states.appended(batch((short) 0, 5, 9), 105);

        assertThat(states.check(first)).isEqualTo(new ProducerStates.Check.Duplicate(100));
        assertThat(states.check(batch((short) 0, 10, 12))).isInstanceOf(ProducerStates.Check.Append.class);
    }

    @Test
    void gapsOldEpochsAndBadNewEpochsAreRejected() {
        ProducerStates states = new ProducerStates();
        states.appended(batch((short) 3, 0, 4), 0);

        assertThat(states.check(batch((short) 3, 7, 8))).isInstanceOfSatisfying(ProducerStates.Check.Reject.class,
                reject -> assertThat(reject.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER));
        assertThat(states.check(batch((short) 2, 5, 6))).isInstanceOfSatisfying(ProducerStates.Check.Reject.class,
                reject -> assertThat(reject.error()).isEqualTo(Errors.INVALID_PRODUCER_EPOCH));
        assertThat(states.check(batch((short) 4, 3, 3))).isInstanceOfSatisfying(ProducerStates.Check.Reject.class,
                reject -> assertThat(reject.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER));
        assertThat(states.check(batch((short) 4, 0, 0))).isInstanceOf(ProducerStates.Check.Append.class);
    }

    @Test
    void retryOlderThanTheRememberedBatchesIsADuplicateNotAGap() {
        ProducerStates states = new ProducerStates();
        for (int sequence = 0; sequence < 7; sequence++) {
            states.appended(batch((short) 0, sequence, sequence), sequence);
        }

        assertThat(states.check(batch((short) 0, 0, 0))).isInstanceOfSatisfying(ProducerStates.Check.Reject.class,
                reject -> assertThat(reject.error()).isEqualTo(Errors.DUPLICATE_SEQUENCE_NUMBER));
        assertThat(states.check(batch((short) 0, 6, 6))).isEqualTo(new ProducerStates.Check.Duplicate(6));
        assertThat(states.check(batch((short) 0, 7, 7))).isInstanceOf(ProducerStates.Check.Append.class);
    }

    @Test
    void unknownProducerMustStartAtSequenceZeroInAnyEpoch() {
        ProducerStates states = new ProducerStates();

        assertThat(states.check(batch((short) 0, 5, 9))).isInstanceOfSatisfying(ProducerStates.Check.Reject.class,
                reject -> assertThat(reject.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER));
        assertThat(states.check(batch((short) 2, 1, 1))).isInstanceOfSatisfying(ProducerStates.Check.Reject.class,
                reject -> assertThat(reject.error()).isEqualTo(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER));
        assertThat(states.check(batch((short) 0, 0, 4))).isInstanceOf(ProducerStates.Check.Append.class);
        assertThat(states.check(batch((short) 2, 0, 0))).isInstanceOf(ProducerStates.Check.Append.class);
    }

    @Test
    void persistedStateRestoresDuplicateDetectionForTheNextOwner() {
        ProducerStates writer = new ProducerStates();
        writer.appended(batch((short) 1, 0, 9), 50);
        String json = writer.drainChanges().get(42L);
        assertThat(writer.drainChanges()).isEmpty();

        ProducerStates nextOwner = new ProducerStates();
        nextOwner.load(42L, json);

        assertThat(nextOwner.check(batch((short) 1, 0, 9))).isEqualTo(new ProducerStates.Check.Duplicate(50));
        assertThat(nextOwner.check(batch((short) 1, 10, 10))).isInstanceOf(ProducerStates.Check.Append.class);
    }

    @Test
    void nonIdempotentBatchesAreNeverChecked() {
        ProducerStates states = new ProducerStates();
        BatchInfo plain = new BatchInfo(-1, (short) -1, -1, -1, 3);
        states.appended(plain, 0);
        assertThat(states.check(plain)).isInstanceOf(ProducerStates.Check.Append.class);
        assertThat(states.drainChanges()).isEmpty();
    }

    private static BatchInfo batch(short epoch, int firstSequence, int lastSequence) {
        return new BatchInfo(42L, epoch, firstSequence, lastSequence, lastSequence - firstSequence + 1);
    }
}
