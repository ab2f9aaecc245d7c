package io.leasehold.proxy.owners;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.testing.FixedRoutes;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OwnerLookupTest {
    private static final BrokerAddress B1 = new BrokerAddress(1, "127.0.0.1", 19091, null);
    private static final BrokerAddress B2 = new BrokerAddress(2, "127.0.0.1", 19092, null);
    private static final BrokerAddress B3 = new BrokerAddress(3, "127.0.0.1", 19093, null);


    private static OwnerLookup router(RoutingSnapshot snapshot) {
        return new OwnerLookup(new FixedRoutes(snapshot), List.of(new BrokerAddress(-1, "localhost", 9999, null)));
    }

    @Test
    void routesOwnedPartitionToItsOwnerOnEveryAttempt() {
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(B1).broker(B2).broker(B3)
                .partition("t", 0, new Ownership(2, 77)).build();
        OwnerLookup router = router(snapshot);
        for (int attempt = 0; attempt < 3; attempt++) {
            Target target = router.partition(snapshot, "t", 0, attempt);
            assertThat(target.broker()).isEqualTo(B2);
            assertThat(target.ownership()).isEqualTo(new Ownership(2, 77));
        }
    }

    @Test
    void unownedPartitionTriesADifferentBrokerOnEachRetry() {
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(B3).broker(B1).broker(B2).build();
        OwnerLookup router = router(snapshot);
        Set<BrokerAddress> tried = new HashSet<>();
        for (int attempt = 0; attempt < 3; attempt++) {
            Target target = router.partition(snapshot, "t", 5, attempt);
            assertThat(target.ownership()).isNull();
            tried.add(target.broker());
        }
        assertThat(tried).containsExactlyInAnyOrder(B1, B2, B3);
    }

    @Test
    void anOwnerWhoseRouteWasDroppedIsTriedLastNotNever() {
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(B1).broker(B2).broker(B3).build();
        OwnerLookup router = new OwnerLookup(new FixedRoutes(snapshot, 2), List.of());
        for (int partition = 0; partition < 30; partition++) {
            List<BrokerAddress> tried = new ArrayList<>();
            for (int attempt = 0; attempt < 3; attempt++) {
                tried.add(router.partition(snapshot, "t", partition, attempt).broker());
            }
            assertThat(tried).as("partition " + partition).containsExactlyInAnyOrder(B1, B2, B3).endsWith(B2);
        }
        assertThat(router.group(snapshot, "orders", 2).broker()).isEqualTo(B2);
        assertThat(router.group(snapshot, "orders", 0).broker()).isNotEqualTo(B2);
    }

    @Test
    void fallbackChoiceIsTheSameForEveryProxy() {
        RoutingSnapshot one = RoutingSnapshot.builder().broker(B1).broker(B2).broker(B3).build();
        RoutingSnapshot other = RoutingSnapshot.builder().broker(B3).broker(B2).broker(B1).build();
        assertThat(router(one).group(one, "orders", 0).broker())
                .isEqualTo(router(other).group(other, "orders", 0).broker());
    }

    @Test
    void ownerWithoutRegisteredAddressFallsBackToLiveBrokers() {
        RoutingSnapshot snapshot = RoutingSnapshot.builder().broker(B1)
                .group("g", new Ownership(9, 3)).build();
        Target target = router(snapshot).group(snapshot, "g", 0);
        assertThat(target.broker()).isEqualTo(B1);
        assertThat(target.ownership()).isNull();
    }

    @Test
    void usesBootstrapBrokersUntilEtcdKnowsAny() {
        RoutingSnapshot empty = RoutingSnapshot.empty();
        assertThat(router(empty).partition(empty, "t", 0, 0).broker().port()).isEqualTo(9999);
    }
}
