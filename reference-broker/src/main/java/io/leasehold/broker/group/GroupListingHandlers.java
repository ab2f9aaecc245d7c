package io.leasehold.broker.group;

import io.leasehold.broker.protocol.ApiHandler;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** DescribeGroups and ListGroups over the groups this broker coordinates. */
public final class GroupListingHandlers {

    /** The only group type this broker has (ListGroups v5 filters by type). */
    private static final String CLASSIC = "classic";

    private final GroupCoordinator coordinator;

    public GroupListingHandlers(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    public ApiHandler describeGroups() {
        return request -> {
            DescribeGroupsRequestData data = request.data(DescribeGroupsRequestData.class);
            List<CompletableFuture<DescribedGroup>> described = new ArrayList<>();
            for (String groupId : data.groups()) {
                described.add(coordinator.access(groupId).thenApply(access -> {
                    if (!access.granted()) {
                        return new DescribedGroup().setGroupId(groupId).setErrorCode(Errors.NOT_COORDINATOR.code())
                                .setGroupState("").setProtocolType("").setProtocolData("");
                    }
                    return access.group().describe();
                }));
            }
            return CompletableFuture.allOf(described.toArray(CompletableFuture[]::new)).thenApply(ignored -> {
                DescribeGroupsResponseData response = new DescribeGroupsResponseData();
                described.forEach(group -> response.groups().add(group.join()));
                return (ApiMessage) response;
            });
        };
    }

    public ApiHandler listGroups() {
        return request -> {
            ListGroupsRequestData data = request.data(ListGroupsRequestData.class);
            ListGroupsResponseData response = new ListGroupsResponseData().setErrorCode(Errors.NONE.code());
            for (Map.Entry<String, ConsumerGroup> entry : coordinator.coordinated()) {
                String state = entry.getValue().stateLabel();
                if (state.equals("Dead")) {
                    continue;
                }
                if (!data.statesFilter().isEmpty() && data.statesFilter().stream().noneMatch(state::equalsIgnoreCase)) {
                    continue;
                }
                if (!data.typesFilter().isEmpty() && data.typesFilter().stream().noneMatch(CLASSIC::equalsIgnoreCase)) {
                    continue;
                }
                response.groups().add(new ListedGroup().setGroupId(entry.getKey())
                        .setProtocolType(entry.getValue().protocolType()).setGroupState(state).setGroupType(CLASSIC));
            }
            return CompletableFuture.completedFuture(response);
        };
    }
}
