package io.leasehold.proxy.request;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.PartitionId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class PartitionWriteOrderTest {
    private static final PartitionId P0 = new PartitionId("t", 0);
    private static final PartitionId P1 = new PartitionId("t", 1);
    private static final BrokerAddress A = new BrokerAddress(1, "127.0.0.1", 10001, null);
    private static final BrokerAddress B = new BrokerAddress(2, "127.0.0.1", 10002, null);

    private final PartitionWriteOrder order = new PartitionWriteOrder();

    @Test
    void pipelinesBehindEarlierRequestsGoingToTheSameBroker() {
        PartitionWriteOrder.Writer first = order.register(List.of(P0));
        assertThat(order.blockers(first, Map.of(P0, A), false)).isNull();
        order.sent(first, P0, A);

        PartitionWriteOrder.Writer second = order.register(List.of(P0));
        assertThat(order.blockers(second, Map.of(P0, A), false)).isNull();
    }

    @Test
    void waitsForEarlierRequestsWhenTheRouteChanged() {
        PartitionWriteOrder.Writer first = order.register(List.of(P0));
        order.sent(first, P0, A);
        PartitionWriteOrder.Writer second = order.register(List.of(P0));

        CompletableFuture<Void> blockers = order.blockers(second, Map.of(P0, B), false);
        assertThat(blockers).isNotNull().isNotDone();
        order.finished(first);
        assertThat(blockers).isDone();
        assertThat(order.blockers(second, Map.of(P0, B), false)).isNull();
    }

    @Test
    void neverPipelinesBehindARequestSentToANonOwner() {
        PartitionWriteOrder.Writer first = order.register(List.of(P0));
        order.sent(first, P0, null);
        PartitionWriteOrder.Writer second = order.register(List.of(P0));
        assertThat(order.blockers(second, Map.of(P0, A), false)).isNotNull();

        java.util.Map<PartitionId, BrokerAddress> unowned = new java.util.HashMap<>();
        unowned.put(P0, null);
        PartitionWriteOrder.Writer third = order.register(List.of(P0));
        assertThat(order.blockers(third, unowned, false)).as("unowned route").isNotNull();
    }

    @Test
    void retriesWaitForEveryEarlierRequestOfThePartition() {
        PartitionWriteOrder.Writer first = order.register(List.of(P0));
        order.sent(first, P0, B);
        PartitionWriteOrder.Writer second = order.register(List.of(P0, P1));
        order.sent(second, P0, B);

        assertThat(order.blockers(second, Map.of(P0, B), true)).isNotNull();
        assertThat(order.blockers(second, Map.of(P1, B), true)).as("no earlier request for P1").isNull();
    }

    @Test
    void laterRequestsNeverBlockEarlierOnes() {
        PartitionWriteOrder.Writer first = order.register(List.of(P0));
        PartitionWriteOrder.Writer second = order.register(List.of(P0));
        order.sent(second, P0, A);
        assertThat(order.blockers(first, Map.of(P0, B), true)).isNull();
    }

    @Test
    void forgetsFinishedRequests() {
        PartitionWriteOrder.Writer first = order.register(List.of(P0, P1));
        order.finished(first);
        assertThat(order.trackedPartitions()).isZero();
    }
}
