package io.leasehold.broker.group;

import io.leasehold.broker.protocol.ApiHandler;
import io.leasehold.broker.protocol.KafkaRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/**
 * DeleteGroups, as Kafka answers it: a group this broker does not coordinate gets
 * NOT_COORDINATOR, one with members NON_EMPTY_GROUP, one that never had members nor committed
 * offsets GROUP_ID_NOT_FOUND; otherwise its committed offsets and its state here are removed.
 */
public final class DeleteGroupsHandler implements ApiHandler {

    private final GroupCoordinator coordinator;
    private final OffsetStore offsets;

    public DeleteGroupsHandler(GroupCoordinator coordinator, OffsetStore offsets) {
        this.coordinator = coordinator;
        this.offsets = offsets;
    }

    @Override
    public CompletableFuture<ApiMessage> handle(KafkaRequest request) {
        DeleteGroupsRequestData data = request.data(DeleteGroupsRequestData.class);
        List<CompletableFuture<DeletableGroupResult>> results = new ArrayList<>();
        for (String groupId : data.groupsNames()) {
            results.add(delete(groupId));
        }
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            results.forEach(result -> response.results().add(result.join()));
            return response;
        });
    }

    private CompletableFuture<DeletableGroupResult> delete(String groupId) {
        return coordinator.access(groupId).thenCompose(access -> {
            if (!access.granted()) {
                return done(groupId, Errors.NOT_COORDINATOR);
            }
            String state = access.group().stateLabel();
            if (!state.equals("Empty") && !state.equals("Dead")) {
                return done(groupId, Errors.NON_EMPTY_GROUP);
            }
            return offsets.fetch(groupId).thenCompose(committed -> {
                if (state.equals("Dead") && committed.isEmpty()) {
                    return done(groupId, Errors.GROUP_ID_NOT_FOUND);
                }
                return offsets.deleteAll(groupId).thenApply(deleted -> {
                    coordinator.deleted(groupId);
                    return result(groupId, Errors.NONE);
                });
            });
        });
    }

    private static DeletableGroupResult result(String groupId, Errors error) {
        return new DeletableGroupResult().setGroupId(groupId).setErrorCode(error.code());
    }

    private static CompletableFuture<DeletableGroupResult> done(String groupId, Errors error) {
        return CompletableFuture.completedFuture(result(groupId, error));
    }
}
