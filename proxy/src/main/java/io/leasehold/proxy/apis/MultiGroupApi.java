package io.leasehold.proxy.apis;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.exchange.PartitionedApi;
import io.leasehold.proxy.owners.OwnerLookup;
import io.leasehold.proxy.owners.Target;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * A group API that names several groups in one request (DescribeGroups, DeleteGroups,
 * OffsetFetch v8+), seen as a partitioned API whose entries are groups: each group goes to its
 * lease owner, NOT_COORDINATOR is the rejection, and the answers are merged in request order.
 *
 * @param <T> the request's per-group element
 * @param <G> the response's per-group element
 */
abstract class MultiGroupApi<Q extends ApiMessage, R extends ApiMessage, T, G>
        implements PartitionedApi<Q, R, T, T, G> {

    abstract String groupId(T group);

    @Override
    public String topicName(T group) {
        return groupId(group);
    }

    @Override
    public Uuid topicId(T group) {
        return Uuid.ZERO_UUID;
    }

    @Override
    public List<T> partitions(T group) {
        return List.of(group);
    }

    @Override
    public int partitionIndex(T group) {
        return 0;
    }

    @Override
    public Target route(OwnerLookup router, RoutingSnapshot snapshot, String group, int partition, int attempt) {
        return router.group(snapshot, group, attempt);
    }

    @Override
    public Errors rejection() {
        return Errors.NOT_COORDINATOR;
    }

    @Override
    public void invalidate(RoutingTable routes, String group, int partition, Ownership rejected) {
        routes.invalidateGroup(group, rejected);
    }

    @Override
    public void countRejection(ProxyMetrics metrics) {
        metrics.notCoordinatorRejection();
    }

    @Override
    public boolean forwardsOriginal(Q request) {
        return true;
    }

    @Override
    public Duration retryBudget(Q request, Duration fallback) {
        return fallback;
    }
}
