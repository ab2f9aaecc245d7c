package io.leasehold.broker.group;

import io.leasehold.broker.cluster.ClusterView;
import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * FindCoordinator for consumer groups: the broker holding the group's lease, or this broker,
 * which claims the group when nobody holds it. Transaction coordinators are not served.
 */
public final class FindCoordinatorHandler implements ApiHandler {

    private static final byte GROUP_KEY = 0;

    private final GroupCoordinator coordinator;
    private final ClusterView cluster;
    private final BrokerAddress self;

    public FindCoordinatorHandler(GroupCoordinator coordinator, ClusterView cluster, BrokerAddress self) {
        this.coordinator = coordinator;
        this.cluster = cluster;
        this.self = self;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        FindCoordinatorRequestData data = request.data(FindCoordinatorRequestData.class);
        List<String> keys = request.version() >= 4 ? data.coordinatorKeys() : List.of(data.key());
        List<CompletableFuture<Coordinator>> found = new ArrayList<>();
        for (String key : keys) {
            found.add(find(key, data.keyType()));
        }
        return CompletableFuture.allOf(found.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            FindCoordinatorResponseData response = new FindCoordinatorResponseData();
            if (request.version() >= 4) {
                found.forEach(coordinator -> response.coordinators().add(coordinator.join()));
            } else {
                Coordinator single = found.get(0).join();
                response.setErrorCode(single.errorCode()).setErrorMessage(single.errorMessage())
                        .setNodeId(single.nodeId()).setHost(single.host()).setPort(single.port());
            }
            return response;
        });
    }

    private CompletableFuture<Coordinator> find(String key, byte keyType) {
        if (keyType != GROUP_KEY) {
            return CompletableFuture.completedFuture(error(key, Errors.INVALID_REQUEST,
                    "only consumer group coordinators (key type 0) are served, got key type " + keyType));
        }
        if (key == null || key.isEmpty()) {
            return CompletableFuture.completedFuture(error(key, Errors.INVALID_REQUEST, "group id must not be empty"));
        }
        return coordinator.access(key).thenCompose(access -> {
            if (access.granted()) {
                return CompletableFuture.completedFuture(at(key, self));
            }
            if (access.otherCoordinator() < 0) {
                return CompletableFuture.completedFuture(error(key, Errors.COORDINATOR_NOT_AVAILABLE,
                        "broker has no etcd session to claim the group with"));
            }
            return cluster.broker(access.otherCoordinator()).thenApply(owner -> owner == null
                    ? error(key, Errors.COORDINATOR_NOT_AVAILABLE,
                            "group is held by broker " + access.otherCoordinator() + ", which is not registered")
                    : at(key, owner));
        });
    }

    private static Coordinator at(String key, BrokerAddress broker) {
        return new Coordinator().setKey(key).setErrorCode(Errors.NONE.code())
                .setNodeId(broker.id()).setHost(broker.host()).setPort(broker.port());
    }

    private static Coordinator error(String key, Errors error, String message) {
        return new Coordinator().setKey(key).setErrorCode(error.code()).setErrorMessage(message)
                .setNodeId(-1).setHost("").setPort(-1);
    }
}
