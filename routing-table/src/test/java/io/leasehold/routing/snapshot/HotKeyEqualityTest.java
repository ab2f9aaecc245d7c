package io.leasehold.routing.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The written-out equals and hashCode of the keys the proxy files every partition under. */
class HotKeyEqualityTest {

    @Test
    void partitionIdsAreEqualExactlyWhenTopicAndPartitionAre() {
        PartitionId id = new PartitionId("orders", 3);
        assertThat(id).isEqualTo(new PartitionId(new String("orders"), 3)).hasSameHashCodeAs(new PartitionId("orders", 3));
        assertThat(id).isNotEqualTo(new PartitionId("orders", 4)).isNotEqualTo(new PartitionId("order", 3))
                .isNotEqualTo("orders-3").isNotEqualTo(null);
    }

    @Test
    void brokerAddressesAreEqualExactlyWhenEveryFieldIs() {
        BrokerAddress broker = new BrokerAddress(1, "10.0.0.1", 9092, "a");
        assertThat(broker).isEqualTo(new BrokerAddress(1, new String("10.0.0.1"), 9092, "a"))
                .hasSameHashCodeAs(new BrokerAddress(1, "10.0.0.1", 9092, "a"));
        assertThat(new BrokerAddress(1, "10.0.0.1", 9092, null)).isEqualTo(new BrokerAddress(1, "10.0.0.1", 9092, null))
                .hasSameHashCodeAs(new BrokerAddress(1, "10.0.0.1", 9092, null));
        assertThat(broker).isNotEqualTo(new BrokerAddress(2, "10.0.0.1", 9092, "a"))
                .isNotEqualTo(new BrokerAddress(1, "10.0.0.2", 9092, "a"))
                .isNotEqualTo(new BrokerAddress(1, "10.0.0.1", 9093, "a"))
                .isNotEqualTo(new BrokerAddress(1, "10.0.0.1", 9092, "b"))
                .isNotEqualTo(new BrokerAddress(1, "10.0.0.1", 9092, null));
    }
}
