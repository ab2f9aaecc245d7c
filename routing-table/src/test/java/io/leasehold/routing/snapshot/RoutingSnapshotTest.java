package io.leasehold.routing.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class RoutingSnapshotTest {

    private static final Ownership B1 = new Ownership(1, 10);
    private static final Ownership B2 = new Ownership(2, 20);

    @Test
    void emptySnapshotKnowsNoOwners() {
        RoutingSnapshot empty = RoutingSnapshot.empty();
        assertThat(empty.partitionOwner("t", 0)).isNull();
        assertThat(empty.groupOwner("g")).isNull();
        assertThat(empty.broker(1)).isNull();
        assertThat(empty.brokers()).isEmpty();
        assertThat(empty.partitions()).isEmpty();
        assertThat(empty.revision()).isZero();
        assertThat(empty.partitionCount()).isZero();
    }

    @Test
    void looksUpPartitionsGroupsAndBrokersItWasBuiltWith() {
        BrokerAddress b1 = new BrokerAddress(1, "127.0.0.1", 19092, null);
        BrokerAddress b2 = new BrokerAddress(2, "127.0.0.1", 19093, "r2");
        RoutingSnapshot snapshot = RoutingSnapshot.builder()
                .partition("orders", 0, B1).partition("orders", 1, B2).partition("audit", 3, B2)
                .group("billing", B1).broker(b2).broker(b1).revision(42).build();

        assertThat(snapshot.partitionOwner("orders", 0)).isEqualTo(B1);
        assertThat(snapshot.partitionOwner("orders", 1)).isEqualTo(B2);
        assertThat(snapshot.partitionOwner("orders", 2)).isNull();
        assertThat(snapshot.partitionOwner("orders", -1)).isNull();
        assertThat(snapshot.partitionOwner("audit", 3)).isEqualTo(B2);
        assertThat(snapshot.partitionOwner("audit", 0)).isNull();
        assertThat(snapshot.partitionOwner("missing", 0)).isNull();
        assertThat(snapshot.groupOwner("billing")).isEqualTo(B1);
        assertThat(snapshot.broker(2)).isEqualTo(b2);
        assertThat(snapshot.broker(3)).isNull();
        assertThat(snapshot.brokers()).containsExactly(b1, b2);
        assertThat(snapshot.revision()).isEqualTo(42);
        assertThat(snapshot.partitionCount()).isEqualTo(3);
        assertThat(snapshot.partitions()).containsExactly(
                java.util.Map.entry(new PartitionId("audit", 3), B2),
                java.util.Map.entry(new PartitionId("orders", 0), B1),
                java.util.Map.entry(new PartitionId("orders", 1), B2));
        assertThat(snapshot.groups()).containsOnlyKeys("billing");
    }

    @Test
    void derivedSnapshotLeavesItsBaseUntouched() {
        RoutingSnapshot base = RoutingSnapshot.builder().partition("t", 0, B1).partition("u", 0, B1).group("g", B1)
                .broker(new BrokerAddress(1, "h", 1, null)).revision(5).build();

        RoutingSnapshot.Builder builder = base.toBuilder();
        builder.partition("t", 0, B2);
        assertThat(builder.removePartition("u", 0)).isTrue();
        assertThat(builder.removePartition("u", 0)).isFalse();
        assertThat(builder.removeGroup("g")).isTrue();
        assertThat(builder.removeBroker(1)).isTrue();
        RoutingSnapshot next = builder.revision(6).build();

        assertThat(next.partitionOwner("t", 0)).isEqualTo(B2);
        assertThat(next.partitionOwner("u", 0)).isNull();
        assertThat(next.groupOwner("g")).isNull();
        assertThat(next.broker(1)).isNull();
        assertThat(next.partitionCount()).isEqualTo(1);
        assertThat(next.revision()).isEqualTo(6);

        assertThat(base.partitionOwner("t", 0)).isEqualTo(B1);
        assertThat(base.partitionOwner("u", 0)).isEqualTo(B1);
        assertThat(base.groupOwner("g")).isEqualTo(B1);
        assertThat(base.broker(1)).isNotNull();
        assertThat(base.partitionCount()).isEqualTo(2);
    }

    @Test
    void farApartPartitionNumbersAreStoredWithoutAHugeArray() {
        RoutingSnapshot snapshot = RoutingSnapshot.builder()
                .partition("t", 2_000_000_000, B1).partition("t", 7, B2).partition("t", 1_000_000, B1).build();

        assertThat(snapshot.partitionOwner("t", 2_000_000_000)).isEqualTo(B1);
        assertThat(snapshot.partitionOwner("t", 1_000_000)).isEqualTo(B1);
        assertThat(snapshot.partitionOwner("t", 7)).isEqualTo(B2);
        assertThat(snapshot.partitionOwner("t", 8)).isNull();
        assertThat(snapshot.partitions().keySet()).extracting(PartitionId::partition)
                .containsExactly(7, 1_000_000, 2_000_000_000);

        RoutingSnapshot.Builder builder = snapshot.toBuilder();
        builder.removePartition("t", 2_000_000_000);
        builder.removePartition("t", 1_000_000);
        RoutingSnapshot dense = builder.partition("t", 0, B1).build();
        assertThat(dense.partitionOwner("t", 0)).isEqualTo(B1);
        assertThat(dense.partitionOwner("t", 7)).isEqualTo(B2);
        assertThat(dense.partitionOwner("t", 2_000_000_000)).isNull();
        assertThat(dense.partitionCount()).isEqualTo(2);
    }

    @Test
    void topicWithoutOwnedPartitionsDisappears() {
        RoutingSnapshot base = RoutingSnapshot.builder().partition("t", 3, B1).build();
        RoutingSnapshot.Builder builder = base.toBuilder();
        builder.removePartition("t", 3);
        RoutingSnapshot next = builder.build();
        assertThat(next.partitionCount()).isZero();
        assertThat(next.partitions()).isEmpty();
    }

    @Test
    void builderReportsOwnersSetSoFar() {
        RoutingSnapshot base = RoutingSnapshot.builder().partition("t", 0, B1).group("g", B1).build();
        RoutingSnapshot.Builder builder = base.toBuilder();
        assertThat(builder.partitionOwner("t", 0)).isEqualTo(B1);
        builder.partition("t", 0, B2);
        assertThat(builder.partitionOwner("t", 0)).isEqualTo(B2);
        assertThat(builder.partitionOwner("t", 1)).isNull();
        assertThat(builder.groupOwner("g")).isEqualTo(B1);
    }

    @Test
    void rejectsNegativePartitionsAndMissingOwners() {
        assertThatThrownBy(() -> RoutingSnapshot.builder().partition("t", -1, B1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
        assertThatThrownBy(() -> RoutingSnapshot.builder().partition("t", 0, null))
                .isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new PartitionId("t", -2)).hasMessageContaining("-2");
        assertThatThrownBy(() -> new BrokerAddress(1, "h", 0, null)).hasMessageContaining("port");
    }

    @Test
    void brokersViewCannotBeModified() {
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(new BrokerAddress(1, "h", 1, null)).build();
        assertThatThrownBy(() -> snapshot.brokers().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> snapshot.partitions().clear()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(List.copyOf(snapshot.brokers())).hasSize(1);
    }
}
