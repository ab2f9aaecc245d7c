package io.leasehold.proxy.versions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.proxy.apis.FetchApi;
import io.leasehold.proxy.dispatch.RoutePolicy;
import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.RequestFrame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * The version bridge against KafScale v1.6's API table: which version each client version is
 * sent in, and, per API family, that a request read in every servable client version and
 * re-encoded in the bridged version keeps what the broker needs, and that the broker's answer
 * turned back into the client's version keeps what the client needs.
 */
class VersionBridgeTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
    private static final VersionBridge KAFSCALE = VersionBridge.to(Map.ofEntries(
            Map.entry(ApiKeys.METADATA, new VersionBridge.Range((short) 0, (short) 12)),
            Map.entry(ApiKeys.PRODUCE, new VersionBridge.Range((short) 0, (short) 9)),
            Map.entry(ApiKeys.FETCH, new VersionBridge.Range((short) 11, (short) 13)),
            Map.entry(ApiKeys.LIST_OFFSETS, new VersionBridge.Range((short) 0, (short) 4)),
            Map.entry(ApiKeys.JOIN_GROUP, new VersionBridge.Range((short) 4, (short) 4)),
            Map.entry(ApiKeys.SYNC_GROUP, new VersionBridge.Range((short) 4, (short) 4)),
            Map.entry(ApiKeys.HEARTBEAT, new VersionBridge.Range((short) 4, (short) 4)),
            Map.entry(ApiKeys.LEAVE_GROUP, new VersionBridge.Range((short) 4, (short) 4)),
            Map.entry(ApiKeys.OFFSET_COMMIT, new VersionBridge.Range((short) 3, (short) 3)),
            Map.entry(ApiKeys.OFFSET_FETCH, new VersionBridge.Range((short) 5, (short) 5)),
            Map.entry(ApiKeys.DELETE_TOPICS, new VersionBridge.Range((short) 0, (short) 2))));

    @Test
    void keepsTheClientVersionWhenEveryBackendSupportsIt() {
        assertThat(KAFSCALE.target(ApiKeys.FETCH, (short) 12)).isEqualTo((short) 12);
        assertThat(KAFSCALE.target(ApiKeys.PRODUCE, (short) 7)).isEqualTo((short) 7);
        assertThat(VersionBridge.none().target(ApiKeys.FETCH, (short) 4)).as("ranges not known yet").isEqualTo((short) 4);
    }

    @Test
    void picksTheNearestSupportedVersionWithinTheClientVersionsSegment() {
        assertThat(KAFSCALE.target(ApiKeys.FETCH, (short) 4)).as("older client: lowest supported").isEqualTo((short) 11);
        assertThat(KAFSCALE.target(ApiKeys.FETCH, (short) 14)).as("newer client: highest supported").isEqualTo((short) 13);
        assertThat(KAFSCALE.target(ApiKeys.HEARTBEAT, (short) 0)).isEqualTo((short) 4);
        assertThat(KAFSCALE.target(ApiKeys.OFFSET_FETCH, (short) 1)).isEqualTo((short) 5);
        assertThat(KAFSCALE.target(ApiKeys.OFFSET_COMMIT, (short) 5)).isEqualTo((short) 3);
        assertThat(KAFSCALE.target(ApiKeys.DELETE_TOPICS, (short) 5)).isEqualTo((short) 2);
    }

    @Test
    void doesNotServeAVersionWithARequestFieldTheTargetLacks() {
        assertThat(KAFSCALE.canServe(ApiKeys.DELETE_TOPICS, (short) 6)).as("topics[] by name or id").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.DELETE_TOPICS, (short) 5)).isTrue();
        assertThat(KAFSCALE.canServe(ApiKeys.JOIN_GROUP, (short) 5)).as("group_instance_id").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.OFFSET_COMMIT, (short) 6)).as("committed_leader_epoch").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.LEAVE_GROUP, (short) 5)).as("members[].reason").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.FETCH, (short) 15)).as("tagged replica_state").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.OFFSET_FETCH, (short) 7)).as("require_stable is reset on purpose")
                .isTrue();
        assertThat(KAFSCALE.target(ApiKeys.DELETE_TOPICS, (short) 6)).as("forwarded as it is").isEqualTo((short) 6);
    }

    @Test
    void doesNotBridgeAcrossAChangeOfMeaning() {
        assertThat(KAFSCALE.canServe(ApiKeys.JOIN_GROUP, (short) 3)).as("no member-id round").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.LEAVE_GROUP, (short) 2)).as("single member, not a batch").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.OFFSET_FETCH, (short) 8)).as("several groups").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.OFFSET_COMMIT, (short) 10)).as("topic ids").isFalse();
        assertThat(KAFSCALE.canServe(ApiKeys.FETCH, (short) 13)).isTrue();
        assertThat(KAFSCALE.target(ApiKeys.JOIN_GROUP, (short) 3)).as("forwarded as it is").isEqualTo((short) 3);
    }

    @Test
    void aFieldTheBackendVersionLacksFailsTheBridgeInsteadOfBeingDropped() {
        RequestFrame frame = parse(KafkaMessages.encodeRequest(ALLOC, ApiKeys.JOIN_GROUP, (short) 5, "client",
                new JoinGroupRequestData().setGroupId("g").setMemberId("m-1").setGroupInstanceId("static-1")
                        .setProtocolType("consumer").setProtocols(protocols())));
        try {
            assertThatThrownBy(() -> VersionBridge.encodeRequest(ALLOC, frame, (short) 4, frame.decodeBody()))
                    .as("a static member would silently become a dynamic one")
                    .isInstanceOf(UnsupportedVersionException.class).hasMessageContaining("groupInstanceId");
        } finally {
            frame.release();
        }
    }

    @Test
    void groupMembershipRequestsAndAnswersSurviveTheBridgeInEveryServableVersion() {
        roundTrip(ApiKeys.SYNC_GROUP, v -> new SyncGroupRequestData().setGroupId("g").setGenerationId(3)
                        .setMemberId("m-1").setProtocolType(v >= 5 ? "consumer" : null)
                        .setProtocolName(v >= 5 ? "range" : null)
                        .setAssignments(List.of(new SyncGroupRequestData.SyncGroupRequestAssignment()
                                .setMemberId("m-1").setAssignment(bytes("assignment")))),
                (SyncGroupRequestData sent) -> assertThat(sent.assignments().get(0).assignment())
                        .isEqualTo(bytes("assignment")),
                new SyncGroupResponseData().setAssignment(bytes("assignment")),
                (SyncGroupResponseData got) -> assertThat(got.assignment()).isEqualTo(bytes("assignment")));
        roundTrip(ApiKeys.HEARTBEAT, v -> new HeartbeatRequestData().setGroupId("g").setGenerationId(3).setMemberId("m-1"),
                (HeartbeatRequestData sent) -> assertThat(sent.generationId()).isEqualTo(3),
                new HeartbeatResponseData().setErrorCode((short) 27),
                (HeartbeatResponseData got) -> assertThat(got.errorCode()).as("REBALANCE_IN_PROGRESS").isEqualTo((short) 27));
        roundTrip(ApiKeys.LEAVE_GROUP, v -> new LeaveGroupRequestData().setGroupId("g").setMembers(List.of(
                        new LeaveGroupRequestData.MemberIdentity().setMemberId("m-1").setReason(v >= 5 ? "bye" : null))),
                (LeaveGroupRequestData sent) -> assertThat(sent.members().get(0).memberId()).isEqualTo("m-1"),
                new LeaveGroupResponseData().setMembers(List.of(new LeaveGroupResponseData.MemberResponse()
                        .setMemberId("m-1"))),
                (LeaveGroupResponseData got) -> assertThat(got.members().get(0).memberId()).isEqualTo("m-1"));
    }

    @Test
    void offsetCommitsAndFetchesSurviveTheBridgeInEveryServableVersion() {
        roundTrip(ApiKeys.OFFSET_COMMIT, v -> new OffsetCommitRequestData().setGroupId("g").setGenerationIdOrMemberEpoch(3)
                        .setMemberId("m-1").setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                                .setName("t").setPartitions(List.of(new OffsetCommitRequestData.OffsetCommitRequestPartition()
                                        .setPartitionIndex(2).setCommittedOffset(42)
                                        .setCommittedLeaderEpoch(v >= 6 ? 5 : -1).setCommittedMetadata(""))))),
                (OffsetCommitRequestData sent) -> {
                    OffsetCommitRequestData.OffsetCommitRequestPartition p = sent.topics().get(0).partitions().get(0);
                    assertThat(p.committedOffset()).isEqualTo(42);
                    assertThat(p.partitionIndex()).isEqualTo(2);
                },
                new OffsetCommitResponseData().setTopics(List.of(new OffsetCommitResponseData.OffsetCommitResponseTopic()
                        .setName("t").setPartitions(List.of(new OffsetCommitResponseData.OffsetCommitResponsePartition()
                                .setPartitionIndex(2))))),
                (OffsetCommitResponseData got) -> assertThat(got.topics().get(0).partitions().get(0).partitionIndex())
                        .isEqualTo(2));
        roundTrip(ApiKeys.OFFSET_FETCH, v -> new OffsetFetchRequestData().setGroupId("g").setRequireStable(v >= 7)
                        .setTopics(List.of(new OffsetFetchRequestData.OffsetFetchRequestTopic().setName("t")
                                .setPartitionIndexes(List.of(2)))),
                (OffsetFetchRequestData sent) -> assertThat(sent.topics().get(0).partitionIndexes()).containsExactly(2),
                new OffsetFetchResponseData().setTopics(List.of(new OffsetFetchResponseData.OffsetFetchResponseTopic()
                        .setName("t").setPartitions(List.of(new OffsetFetchResponseData.OffsetFetchResponsePartition()
                                .setPartitionIndex(2).setCommittedOffset(42).setCommittedLeaderEpoch(5)
                                .setMetadata(""))))),
                (OffsetFetchResponseData got) -> assertThat(got.topics().get(0).partitions().get(0).committedOffset())
                        .isEqualTo(42));
    }

    @Test
    void fetchesSurviveTheBridgeInEveryServableVersion() {
        MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(bytes("value")));
        FetchApi fetch = new FetchApi();
        roundTripPerTarget(ApiKeys.FETCH, v -> new FetchRequestData().setReplicaId(-1).setMaxWaitMs(500).setMinBytes(1)
                        .setMaxBytes(1 << 20).setSessionId(0).setSessionEpoch(-1)
                        .setTopics(List.of(new FetchRequestData.FetchTopic().setTopic(v < 13 ? "t" : "")
                                .setTopicId(v < 13 ? Uuid.ZERO_UUID : TOPIC_ID)
                                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(2)
                                        .setFetchOffset(7).setPartitionMaxBytes(1 << 20)
                                        .setCurrentLeaderEpoch(v >= 9 ? 1 : -1))))),
                (FetchRequestData sent) -> assertThat(sent.topics().get(0).partitions().get(0).fetchOffset()).isEqualTo(7),
                target -> new FetchResponseData().setResponses(List.of(new FetchResponseData.FetchableTopicResponse()
                        .setTopic(target < 13 ? "t" : "").setTopicId(target < 13 ? Uuid.ZERO_UUID : TOPIC_ID).setPartitions(List.of(new FetchResponseData.PartitionData()
                                .setPartitionIndex(2).setHighWatermark(8).setLastStableOffset(8).setLogStartOffset(0)
                                .setPreferredReadReplica(1).setRecords(records))))),
                (FetchResponseData got) -> assertThat(got.responses().get(0).partitions().get(0).highWatermark())
                        .isEqualTo(8),
                (FetchResponseData answer) -> fetch.forEachResult(answer, (name, id, partition, result) -> { }));
    }

    @Test
    void metadataAndListOffsetsSurviveTheBridgeInEveryServableVersion() {
        roundTripPerTarget(ApiKeys.METADATA, v -> new MetadataRequestData().setTopics(List.of(
                        new MetadataRequestData.MetadataRequestTopic().setName("t"))),
                (MetadataRequestData sent) -> assertThat(sent.topics().get(0).name()).isEqualTo("t"),
                VersionBridgeTest::metadataAnswer,
                (MetadataResponseData got) -> assertThat(got.topics().find("t").partitions()).hasSize(1), a -> { });
        roundTripPerTarget(ApiKeys.LIST_OFFSETS, v -> new ListOffsetsRequestData().setReplicaId(-1).setTopics(List.of(
                        new ListOffsetsRequestData.ListOffsetsTopic().setName("t").setPartitions(List.of(
                                new ListOffsetsRequestData.ListOffsetsPartition().setPartitionIndex(2).setTimestamp(-1)
                                        .setCurrentLeaderEpoch(v >= 4 ? 1 : -1))))),
                (ListOffsetsRequestData sent) -> assertThat(sent.topics().get(0).partitions().get(0).timestamp()).isEqualTo(-1),
                target -> new ListOffsetsResponseData().setTopics(List.of(new ListOffsetsResponseData.ListOffsetsTopicResponse()
                        .setName("t").setPartitions(List.of(new ListOffsetsResponseData.ListOffsetsPartitionResponse()
                                .setPartitionIndex(2).setOffset(8).setTimestamp(-1).setLeaderEpoch(target >= 4 ? 1 : -1))))),
                (ListOffsetsResponseData got) -> assertThat(got.topics().get(0).partitions().get(0).offset()).isEqualTo(8),
                a -> { });
    }

    private static MetadataResponseData metadataAnswer(short target) {
        MetadataResponseData.MetadataResponseTopicCollection topics = new MetadataResponseData.MetadataResponseTopicCollection();
        topics.add(new MetadataResponseData.MetadataResponseTopic().setName("t").setTopicId(TOPIC_ID)
                .setPartitions(List.of(new MetadataResponseData.MetadataResponsePartition().setPartitionIndex(0)
                        .setLeaderId(0).setLeaderEpoch(target >= 7 ? 1 : -1).setReplicaNodes(List.of(0)).setIsrNodes(List.of(0)))));
        return new MetadataResponseData().setClusterId("c").setControllerId(0).setTopics(topics);
    }

    private <Q extends ApiMessage, R extends ApiMessage> void roundTrip(ApiKeys api, Function<Short, Q> request,
            Consumer<Q> checkSent, R answer, Consumer<R> checkAnswer) {
        roundTripPerTarget(api, request, checkSent, target -> answer, checkAnswer, a -> { });
    }

    /**
     * For every client version of {@code api} the bridge can serve, with the proxy's own range: the
     * request as the client encodes it, re-encoded in the target version, as the broker reads it;
     * and {@code answer} as the broker encodes it in the target version, converted to the client's
     * version (after {@code prepare}, the API's own resets), as the client reads it.
     */
    @SuppressWarnings("unchecked")
    private <Q extends ApiMessage, R extends ApiMessage> void roundTripPerTarget(ApiKeys api, Function<Short, Q> request,
            Consumer<Q> checkSent, Function<Short, R> answer, Consumer<R> checkAnswer,
            Consumer<R> prepare) {
        RoutePolicy policy = new RoutePolicy();
        List<Short> bridged = new ArrayList<>();
        for (short v = policy.minVersion(api); v <= policy.maxVersion(api); v++) {
            if (!KAFSCALE.canServe(api, v)) {
                continue;
            }
            short target = KAFSCALE.target(api, v);
            if (target != v) {
                bridged.add(v);
            }
            RequestFrame frame = parse(KafkaMessages.encodeRequest(ALLOC, api, v, "client", request.apply(v)));
            try {
                RequestFrame sent = parse(VersionBridge.encodeRequest(ALLOC, frame, target, frame.decodeBody()));
                try {
                    assertThat(sent.version()).isEqualTo(target);
                    checkSent.accept((Q) sent.decodeBody());
                } finally {
                    sent.release();
                }
            } catch (Exception e) {
                throw new AssertionError(api + " v" + v + " → v" + target + ": " + e, e);
            } finally {
                frame.release();
            }
            R fromBroker = (R) answer.apply(target).duplicate();
            prepare.accept(fromBroker);
            ByteBuf converted = VersionBridge.convertResponse(ALLOC,
                    KafkaMessages.encodeResponse(ALLOC, api, target, 99, fromBroker), api, target, v, 77);
            try {
                assertThat(KafkaMessages.responseCorrelationId(converted)).isEqualTo(77);
                checkAnswer.accept(KafkaMessages.decodeResponse(converted, api, v));
            } catch (RuntimeException e) {
                throw new AssertionError(api + " answer v" + target + " → v" + v + ": " + e, e);
            } finally {
                converted.release();
            }
        }
        assertThat(bridged).as("%s versions that needed the bridge", api).isNotEmpty();
    }

    private static RequestFrame parse(ByteBuf encoded) {
        try {
            return RequestFrame.parse(encoded);
        } catch (Exception e) {
            encoded.release();
            throw new AssertionError(e);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols() {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection c = new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        c.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range").setMetadata(bytes("subscription")));
        return c;
    }
}
