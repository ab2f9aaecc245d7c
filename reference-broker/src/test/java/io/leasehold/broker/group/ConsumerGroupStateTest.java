package io.leasehold.broker.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConsumerGroupStateTest {

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stopScheduler() {
        scheduler.shutdownNow();
    }

    @Test
    void membersJoiningTogetherShareAGenerationAndOnlyTheLeaderSeesTheMembers() throws Exception {
        ConsumerGroup group = new ConsumerGroup("g", scheduler, 200);
        CompletableFuture<JoinGroupResponseData> a = group.join(newMember("a", 10_000));
        CompletableFuture<JoinGroupResponseData> b = group.join(newMember("b", 10_000));

        JoinGroupResponseData joinedA = a.get(5, TimeUnit.SECONDS);
        JoinGroupResponseData joinedB = b.get(5, TimeUnit.SECONDS);
        String idA = joinedA.memberId();
        String idB = joinedB.memberId();

        assertThat(idA).startsWith("a-");
        assertThat(joinedA.generationId()).isEqualTo(1).isEqualTo(joinedB.generationId());
        assertThat(joinedA.leader()).isEqualTo(idA).isEqualTo(joinedB.leader());
        assertThat(joinedA.protocolName()).isEqualTo("range");
        assertThat(joinedA.members()).extracting(JoinGroupResponseMember::memberId).containsExactly(idA, idB);
        assertThat(joinedB.members()).isEmpty();

        CompletableFuture<SyncGroupResponseData> followerSync = group.sync(idB, 1, Map.of());
        assertThat(followerSync).as("a follower waits for the leader's assignment").isNotDone();
        SyncGroupResponseData leaderSync = group.sync(idA, 1, Map.of(idA, new byte[] {1}, idB, new byte[] {2}))
                .get(1, TimeUnit.SECONDS);

        assertThat(leaderSync.assignment()).containsExactly(1);
        assertThat(followerSync.get(1, TimeUnit.SECONDS).assignment()).containsExactly(2);
        assertThat(group.stateLabel()).isEqualTo("Stable");
    }

    @Test
    void memberThatStopsHeartbeatingIsRemovedAndTheGroupRebalances() throws Exception {
        ConsumerGroup group = new ConsumerGroup("g", scheduler, 100);
        CompletableFuture<JoinGroupResponseData> a = group.join(newMember("a", 1_000));
        CompletableFuture<JoinGroupResponseData> b = group.join(newMember("b", 1_000));
        String idA = a.get(5, TimeUnit.SECONDS).memberId();
        String idB = b.get(5, TimeUnit.SECONDS).memberId();
        group.sync(idB, 1, Map.of());
        group.sync(idA, 1, Map.of()).get(1, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> group.heartbeat(idA, 1) == Errors.REBALANCE_IN_PROGRESS);
        assertThat(group.heartbeat(idB, 1)).isEqualTo(Errors.UNKNOWN_MEMBER_ID);

        JoinGroupResponseData rejoined = group.join(known(idA, 1_000)).get(5, TimeUnit.SECONDS);
        assertThat(rejoined.generationId()).isEqualTo(2);
        assertThat(rejoined.members()).extracting(JoinGroupResponseMember::memberId).containsExactly(idA);
    }

    @Test
    void unknownMembersAndStaleGenerationsAreRefused() throws Exception {
        ConsumerGroup group = new ConsumerGroup("g", scheduler, 0);
        ConsumerGroup.JoinRequest fresh = new ConsumerGroup.JoinRequest("", null, "client", "host", 10_000, 10_000,
                "consumer", List.of(new GroupMember.Protocol("range", new byte[0])), true);

        JoinGroupResponseData required = group.join(fresh).get(1, TimeUnit.SECONDS);
        assertThat(required.errorCode()).isEqualTo(Errors.MEMBER_ID_REQUIRED.code());
        assertThat(group.join(known("stranger", 10_000)).get(1, TimeUnit.SECONDS).errorCode())
                .isEqualTo(Errors.UNKNOWN_MEMBER_ID.code());

        JoinGroupResponseData joined = group.join(known(required.memberId(), 10_000)).get(5, TimeUnit.SECONDS);
        assertThat(joined.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(group.heartbeat(required.memberId(), joined.generationId() - 1)).isEqualTo(Errors.ILLEGAL_GENERATION);
        assertThat(group.validateCommit("", -1)).as("simple commits only while the group is empty")
                .isEqualTo(Errors.ILLEGAL_GENERATION);
    }

    /** A member joining for the first time without KIP-394 (JoinGroup before v4): it gets an id at once. */
    private static ConsumerGroup.JoinRequest newMember(String clientId, int sessionTimeoutMs) {
        return new ConsumerGroup.JoinRequest("", null, clientId, "host", sessionTimeoutMs, 5_000, "consumer",
                List.of(new GroupMember.Protocol("range", new byte[0])), false);
    }

    private static ConsumerGroup.JoinRequest known(String memberId, int sessionTimeoutMs) {
        return new ConsumerGroup.JoinRequest(memberId, null, "client", "host", sessionTimeoutMs, 5_000, "consumer",
                List.of(new GroupMember.Protocol("range", new byte[0])), false);
    }
}
