package io.leasehold.proxy.exchange;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The written-out equals and hashCode of the key a request's partitions and its responses' meet under. */
class PartitionKeyTest {

    @Test
    void keysAreEqualExactlyWhenNameIdAndPartitionAre() {
        Uuid id = Uuid.randomUuid();
        PartitionedExchange.Key byName = new PartitionedExchange.Key("orders", Uuid.ZERO_UUID, 2);
        assertThat(byName).isEqualTo(new PartitionedExchange.Key(new String("orders"), Uuid.ZERO_UUID, 2))
                .hasSameHashCodeAs(new PartitionedExchange.Key("orders", Uuid.ZERO_UUID, 2));
        assertThat(byName).isNotEqualTo(new PartitionedExchange.Key("orders", Uuid.ZERO_UUID, 1))
                .isNotEqualTo(new PartitionedExchange.Key("order", Uuid.ZERO_UUID, 2))
                .isNotEqualTo(new PartitionedExchange.Key("orders", id, 2));
        // A request that names topics by id only carries no name (null in older fetch versions' keys).
        PartitionedExchange.Key byId = new PartitionedExchange.Key(null, id, 2);
        assertThat(byId).isEqualTo(new PartitionedExchange.Key(null, new Uuid(id.getMostSignificantBits(),
                id.getLeastSignificantBits()), 2)).hasSameHashCodeAs(new PartitionedExchange.Key(null, id, 2));
        assertThat(byId).isNotEqualTo(new PartitionedExchange.Key(null, Uuid.randomUuid(), 2))
                .isNotEqualTo(new PartitionedExchange.Key("orders", id, 2));
    }
}
