package io.leasehold.broker.group;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One classic-protocol consumer group coordinated by this broker: membership, generations and
 * the join/sync rebalance, with session expiry. Every method holds the group's monitor; answers
 * to waiting joins and syncs are completed outside of it.
 */
final class ConsumerGroup {

    enum State {
        EMPTY("Empty"), PREPARING_REBALANCE("PreparingRebalance"), COMPLETING_REBALANCE("CompletingRebalance"),
        STABLE("Stable"), DEAD("Dead");

        final String label;

        State(String label) {
            this.label = label;
        }
    }

    /** Parameters of one JoinGroup call. */
    record JoinRequest(String memberId, String groupInstanceId, String clientId, String clientHost,
                       int sessionTimeoutMs, int rebalanceTimeoutMs, String protocolType,
                       List<GroupMember.Protocol> protocols, boolean requireKnownMemberId) {
    }

    private final String groupId;
    private final ScheduledExecutorService scheduler;
    private final long initialRebalanceDelayMs;
    private final Map<String, GroupMember> members = new LinkedHashMap<>();
    private final Set<String> pendingMemberIds = new LinkedHashSet<>();
    private State state = State.EMPTY;
    private int generation;
    private String protocolType;
    private String protocolName;
    private String leaderId;
    private ScheduledFuture<?> joinDeadline;
    private ScheduledFuture<?> joinDelay;
    private boolean delayPassed;

    ConsumerGroup(String groupId, ScheduledExecutorService scheduler, long initialRebalanceDelayMs) {
        this.groupId = groupId;
        this.scheduler = scheduler;
        this.initialRebalanceDelayMs = initialRebalanceDelayMs;
    }

    synchronized CompletableFuture<JoinGroupResponseData> join(JoinRequest request) {
        if (state == State.DEAD) {
            return done(joinError(Errors.COORDINATOR_NOT_AVAILABLE, request.memberId()));
        }
        if (request.protocolType() == null || request.protocolType().isEmpty() || request.protocols().isEmpty()) {
            return done(joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, request.memberId()));
        }
        if (!members.isEmpty() && (!request.protocolType().equals(protocolType) || !sharesProtocol(request.protocols()))) {
            return done(joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, request.memberId()));
        }
        String memberId = request.memberId();
        if (memberId.isEmpty()) {
            memberId = request.clientId() + "-" + UUID.randomUUID();
            if (request.requireKnownMemberId()) {
                // KIP-394: the member must come back with its id, so abandoned joins leave no member behind.
                pendingMemberIds.add(memberId);
                return done(joinError(Errors.MEMBER_ID_REQUIRED, memberId));
            }
        } else if (!members.containsKey(memberId) && !pendingMemberIds.remove(memberId)) {
            return done(joinError(Errors.UNKNOWN_MEMBER_ID, memberId));
        }
        GroupMember member = members.computeIfAbsent(memberId,
                id -> new GroupMember(id, request.groupInstanceId(), request.clientId(), request.clientHost()));
        member.sessionTimeoutMs = request.sessionTimeoutMs();
        member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
        member.protocols = request.protocols();
        if (members.size() == 1) {
            protocolType = request.protocolType();
        }
        CompletableFuture<JoinGroupResponseData> previous = member.pendingJoin;
        member.pendingJoin = new CompletableFuture<>();
        cancelSession(member);
        CompletableFuture<JoinGroupResponseData> answer = member.pendingJoin;
        if (previous != null) {
            previous.complete(joinError(Errors.REBALANCE_IN_PROGRESS, memberId));
        }
        if (state != State.PREPARING_REBALANCE) {
            prepareRebalance();
        }
        tryCompleteJoin();
        return answer;
    }

    synchronized CompletableFuture<SyncGroupResponseData> sync(String memberId, int generationId,
                                                               Map<String, byte[]> assignments) {
        GroupMember member = members.get(memberId);
        if (member == null) {
            return done(syncError(Errors.UNKNOWN_MEMBER_ID));
        }
        if (generationId != generation) {
            return done(syncError(Errors.ILLEGAL_GENERATION));
        }
        if (state == State.PREPARING_REBALANCE) {
            return done(syncError(Errors.REBALANCE_IN_PROGRESS));
        }
        scheduleSession(member);
        if (state == State.STABLE) {
            return done(syncAnswer(member));
        }
        member.pendingSync = new CompletableFuture<>();
        CompletableFuture<SyncGroupResponseData> answer = member.pendingSync;
        if (memberId.equals(leaderId)) {
            for (GroupMember each : members.values()) {
                each.assignment = assignments.getOrDefault(each.memberId, new byte[0]);
            }
            state = State.STABLE;
            for (GroupMember each : members.values()) {
                if (each.pendingSync != null) {
                    CompletableFuture<SyncGroupResponseData> waiting = each.pendingSync;
                    each.pendingSync = null;
                    waiting.complete(syncAnswer(each));
                }
            }
        }
        return answer;
    }

    synchronized Errors heartbeat(String memberId, int generationId) {
        GroupMember member = members.get(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generationId != generation) {
            return Errors.ILLEGAL_GENERATION;
        }
        scheduleSession(member);
        return state == State.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    synchronized Errors leave(String memberId) {
        GroupMember member = members.get(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        removeMember(member);
        return Errors.NONE;
    }

    /** Whether an offset commit from this member and generation is acceptable now. */
    synchronized Errors validateCommit(String memberId, int generationId) {
        if (generationId < 0 && memberId.isEmpty()) {
            return members.isEmpty() ? Errors.NONE : Errors.ILLEGAL_GENERATION;
        }
        GroupMember member = members.get(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        if (generationId != generation) {
            return Errors.ILLEGAL_GENERATION;
        }
        if (state == State.COMPLETING_REBALANCE || state == State.PREPARING_REBALANCE) {
            return Errors.REBALANCE_IN_PROGRESS;
        }
        scheduleSession(member);
        return Errors.NONE;
    }

    synchronized DescribedGroup describe() {
        DescribedGroup described = new DescribedGroup()
                .setGroupId(groupId)
                .setErrorCode(Errors.NONE.code())
                .setGroupState(stateLabel())
                .setProtocolType(protocolType == null ? "" : protocolType)
                .setProtocolData(state == State.STABLE && protocolName != null ? protocolName : "")
                .setAuthorizedOperations(Integer.MIN_VALUE);
        for (GroupMember member : members.values()) {
            described.members().add(new DescribedGroupMember()
                    .setMemberId(member.memberId)
                    .setGroupInstanceId(member.groupInstanceId)
                    .setClientId(member.clientId)
                    .setClientHost(member.clientHost)
                    .setMemberMetadata(state == State.STABLE && protocolName != null ? member.metadataFor(protocolName) : new byte[0])
                    .setMemberAssignment(state == State.STABLE ? member.assignment : new byte[0]));
        }
        return described;
    }

    /** Kafka reports a group that never had members as Dead; a claim alone does not make it exist. */
    synchronized String stateLabel() {
        return state == State.EMPTY && generation == 0 ? State.DEAD.label : state.label;
    }

    synchronized String protocolType() {
        return protocolType == null ? "" : protocolType;
    }

    /** Ends the group on this broker (coordination moved away); waiting members are told to look again. */
    void unload() {
        List<Runnable> answers = new ArrayList<>();
        synchronized (this) {
            state = State.DEAD;
            cancel(joinDeadline);
            cancel(joinDelay);
            for (GroupMember member : members.values()) {
                cancelSession(member);
                if (member.pendingJoin != null) {
                    CompletableFuture<JoinGroupResponseData> join = member.pendingJoin;
                    answers.add(() -> join.complete(joinError(Errors.NOT_COORDINATOR, member.memberId)));
                }
                if (member.pendingSync != null) {
                    CompletableFuture<SyncGroupResponseData> sync = member.pendingSync;
                    answers.add(() -> sync.complete(syncError(Errors.NOT_COORDINATOR)));
                }
            }
            members.clear();
        }
        answers.forEach(Runnable::run);
    }

    private void prepareRebalance() {
        boolean wasEmpty = state == State.EMPTY;
        for (GroupMember member : members.values()) {
            if (member.pendingSync != null) {
                member.pendingSync.complete(syncError(Errors.REBALANCE_IN_PROGRESS));
                member.pendingSync = null;
            }
        }
        state = State.PREPARING_REBALANCE;
        int rebalanceTimeout = members.values().stream().mapToInt(m -> m.rebalanceTimeoutMs).max().orElse(0);
        cancel(joinDeadline);
        joinDeadline = scheduler.schedule(this::joinDeadlinePassed, rebalanceTimeout, TimeUnit.MILLISECONDS);
        // A new group waits a moment for the other members starting with it, as Kafka's
        // group.initial.rebalance.delay.ms does, instead of rebalancing once per joiner.
        delayPassed = !wasEmpty || initialRebalanceDelayMs <= 0;
        cancel(joinDelay);
        if (!delayPassed) {
            joinDelay = scheduler.schedule(this::initialDelayPassed, initialRebalanceDelayMs, TimeUnit.MILLISECONDS);
        }
    }

    private synchronized void initialDelayPassed() {
        delayPassed = true;
        tryCompleteJoin();
    }

    private synchronized void joinDeadlinePassed() {
        if (state != State.PREPARING_REBALANCE) {
            return;
        }
        for (GroupMember member : new ArrayList<>(members.values())) {
            if (member.pendingJoin == null) {
                members.remove(member.memberId);
                cancelSession(member);
            }
        }
        delayPassed = true;
        completeJoin();
    }

    private void tryCompleteJoin() {
        if (state != State.PREPARING_REBALANCE || !delayPassed) {
            return;
        }
        if (members.values().stream().allMatch(member -> member.pendingJoin != null)) {
            completeJoin();
        }
    }

    private void completeJoin() {
        cancel(joinDeadline);
        cancel(joinDelay);
        generation++;
        if (members.isEmpty()) {
            state = State.EMPTY;
            protocolName = null;
            leaderId = null;
            return;
        }
        protocolName = chooseProtocol();
        if (leaderId == null || !members.containsKey(leaderId)) {
            leaderId = members.keySet().iterator().next();
        }
        state = State.COMPLETING_REBALANCE;
        for (GroupMember member : members.values()) {
            JoinGroupResponseData response = new JoinGroupResponseData()
                    .setErrorCode(Errors.NONE.code())
                    .setGenerationId(generation)
                    .setProtocolType(protocolType)
                    .setProtocolName(protocolName)
                    .setLeader(leaderId)
                    .setMemberId(member.memberId);
            if (member.memberId.equals(leaderId)) {
                for (GroupMember each : members.values()) {
                    response.members().add(new JoinGroupResponseMember()
                            .setMemberId(each.memberId)
                            .setGroupInstanceId(each.groupInstanceId)
                            .setMetadata(each.metadataFor(protocolName)));
                }
            }
            CompletableFuture<JoinGroupResponseData> waiting = member.pendingJoin;
            member.pendingJoin = null;
            scheduleSession(member);
            waiting.complete(response);
        }
    }

    /** The leader's most preferred protocol that every member supports. */
    private String chooseProtocol() {
        GroupMember first = members.values().iterator().next();
        for (GroupMember.Protocol candidate : first.protocols) {
            if (members.values().stream().allMatch(member -> member.supports(candidate.name()))) {
                return candidate.name();
            }
        }
        return first.protocols.get(0).name();
    }

    private boolean sharesProtocol(List<GroupMember.Protocol> protocols) {
        return protocols.stream().anyMatch(p -> members.values().stream().allMatch(m -> m.supports(p.name())));
    }

    private void removeMember(GroupMember member) {
        members.remove(member.memberId);
        cancelSession(member);
        if (member.pendingJoin != null) {
            member.pendingJoin.complete(joinError(Errors.UNKNOWN_MEMBER_ID, member.memberId));
        }
        if (member.pendingSync != null) {
            member.pendingSync.complete(syncError(Errors.UNKNOWN_MEMBER_ID));
        }
        if (state == State.PREPARING_REBALANCE) {
            tryCompleteJoin();
        } else if (state == State.STABLE || state == State.COMPLETING_REBALANCE) {
            if (members.isEmpty()) {
                generation++;
                state = State.EMPTY;
                protocolName = null;
                leaderId = null;
            } else {
                prepareRebalance();
            }
        }
    }

    private void scheduleSession(GroupMember member) {
        cancelSession(member);
        member.sessionExpiry = scheduler.schedule(() -> expire(member), member.sessionTimeoutMs, TimeUnit.MILLISECONDS);
    }

    private synchronized void expire(GroupMember member) {
        if (members.get(member.memberId) == member && member.pendingJoin == null) {
            removeMember(member);
        }
    }

    private static void cancelSession(GroupMember member) {
        cancel(member.sessionExpiry);
        member.sessionExpiry = null;
    }

    private static void cancel(ScheduledFuture<?> future) {
        if (future != null) {
            future.cancel(false);
        }
    }

    private SyncGroupResponseData syncAnswer(GroupMember member) {
        return new SyncGroupResponseData().setErrorCode(Errors.NONE.code()).setProtocolType(protocolType)
                .setProtocolName(protocolName).setAssignment(member.assignment);
    }

    private static JoinGroupResponseData joinError(Errors error, String memberId) {
        return new JoinGroupResponseData().setErrorCode(error.code()).setMemberId(memberId).setGenerationId(-1)
                .setProtocolName("").setLeader("");
    }

    private static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
    }

    private static <T> CompletableFuture<T> done(T value) {
        return CompletableFuture.completedFuture(value);
    }
}
