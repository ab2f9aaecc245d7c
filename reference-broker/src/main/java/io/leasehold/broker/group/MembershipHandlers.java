package io.leasehold.broker.group;

import io.leasehold.broker.protocol.ApiHandler;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.InvalidGroupIdException;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

/** JoinGroup, SyncGroup, Heartbeat and LeaveGroup: translate the messages and ask the group. */
public final class MembershipHandlers {

    /** Session timeouts accepted, as Kafka's group.min/max.session.timeout.ms (min lowered for tests). */
    private static final int MIN_SESSION_TIMEOUT_MS = 1_000;
    private static final int MAX_SESSION_TIMEOUT_MS = 1_800_000;

    private final GroupCoordinator coordinator;

    public MembershipHandlers(GroupCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    public ApiHandler joinGroup() {
        return request -> {
            JoinGroupRequestData data = request.data(JoinGroupRequestData.class);
            if (data.sessionTimeoutMs() < MIN_SESSION_TIMEOUT_MS || data.sessionTimeoutMs() > MAX_SESSION_TIMEOUT_MS) {
                return done(new JoinGroupResponseData().setErrorCode(Errors.INVALID_SESSION_TIMEOUT.code())
                        .setMemberId(data.memberId()).setGenerationId(-1).setProtocolName("").setLeader(""));
            }
            List<GroupMember.Protocol> protocols = data.protocols().stream()
                    .map(p -> new GroupMember.Protocol(p.name(), p.metadata())).toList();
            ConsumerGroup.JoinRequest join = new ConsumerGroup.JoinRequest(data.memberId(), data.groupInstanceId(),
                    request.clientId(), request.clientHost(), data.sessionTimeoutMs(),
                    request.version() >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs(),
                    data.protocolType(), protocols, request.version() >= 4);
            return withGroup(data.groupId(), group -> group.join(join).thenApply(ApiMessage.class::cast),
                    () -> new JoinGroupResponseData().setErrorCode(Errors.NOT_COORDINATOR.code())
                            .setMemberId(data.memberId()).setGenerationId(-1).setProtocolName("").setLeader(""));
        };
    }

    public ApiHandler syncGroup() {
        return request -> {
            SyncGroupRequestData data = request.data(SyncGroupRequestData.class);
            Map<String, byte[]> assignments = new HashMap<>();
            data.assignments().forEach(a -> assignments.put(a.memberId(), a.assignment()));
            return withGroup(data.groupId(),
                    group -> group.sync(data.memberId(), data.generationId(), assignments).thenApply(ApiMessage.class::cast),
                    () -> new SyncGroupResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()).setAssignment(new byte[0]));
        };
    }

    public ApiHandler heartbeat() {
        return request -> {
            HeartbeatRequestData data = request.data(HeartbeatRequestData.class);
            return withGroup(data.groupId(),
                    group -> done(new HeartbeatResponseData().setErrorCode(group.heartbeat(data.memberId(), data.generationId()).code())),
                    () -> new HeartbeatResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        };
    }

    public ApiHandler leaveGroup() {
        return request -> {
            LeaveGroupRequestData data = request.data(LeaveGroupRequestData.class);
            List<MemberIdentity> leaving = request.version() >= 3 ? data.members()
                    : List.of(new MemberIdentity().setMemberId(data.memberId()));
            return withGroup(data.groupId(), group -> {
                LeaveGroupResponseData response = new LeaveGroupResponseData().setErrorCode(Errors.NONE.code());
                for (MemberIdentity member : leaving) {
                    Errors error = group.leave(member.memberId());
                    response.members().add(new MemberResponse().setMemberId(member.memberId())
                            .setGroupInstanceId(member.groupInstanceId()).setErrorCode(error.code()));
                }
                if (request.version() < 3) {
                    response.setErrorCode(response.members().get(0).errorCode());
                    response.members().clear();
                }
                return done(response);
            }, () -> new LeaveGroupResponseData().setErrorCode(Errors.NOT_COORDINATOR.code()));
        };
    }

    private CompletableFuture<ApiMessage> withGroup(String groupId, Function<ConsumerGroup, CompletableFuture<ApiMessage>> action,
                                                    Supplier<ApiMessage> notCoordinator) {
        if (groupId == null || groupId.isEmpty()) {
            return CompletableFuture.failedFuture(new InvalidGroupIdException(
                    "group id must not be empty"));
        }
        return coordinator.access(groupId).thenCompose(access ->
                access.granted() ? action.apply(access.group()) : done(notCoordinator.get()));
    }

    private static CompletableFuture<ApiMessage> done(ApiMessage message) {
        return CompletableFuture.completedFuture(message);
    }
}
