package io.leasehold.proxy.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.junit.jupiter.api.Test;

class GroupDeadlinesTest {
    private final GroupDeadlines deadlines = new GroupDeadlines(Duration.ofSeconds(30));

    @Test
    void joinGroupWaitsItsRebalanceTimeoutPlusTheMargin() {
        assertThat(deadlines.of(new JoinGroupRequestData().setGroupId("g").setSessionTimeoutMs(45_000)
                .setRebalanceTimeoutMs(300_000))).isEqualTo(Duration.ofSeconds(303));
    }

    @Test
    void joinGroupWithoutRebalanceTimeoutWaitsItsSessionTimeout() {
        assertThat(deadlines.of(new JoinGroupRequestData().setGroupId("g").setSessionTimeoutMs(45_000)
                .setRebalanceTimeoutMs(-1))).isEqualTo(Duration.ofSeconds(48));
    }

    @Test
    void syncGroupAndHeartbeatWaitTheSessionTimeoutTheGroupJoinedWith() {
        deadlines.of(new JoinGroupRequestData().setGroupId("g").setSessionTimeoutMs(60_000).setRebalanceTimeoutMs(1_000));

        assertThat(deadlines.of(new SyncGroupRequestData().setGroupId("g"))).isEqualTo(Duration.ofSeconds(63));
        assertThat(deadlines.of(new HeartbeatRequestData().setGroupId("g"))).isEqualTo(Duration.ofSeconds(63));
        assertThat(deadlines.of(new HeartbeatRequestData().setGroupId("other"))).as("a group never seen joining")
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void noRequestWaitsLessThanTheRequestTimeout() {
        assertThat(deadlines.of(new JoinGroupRequestData().setGroupId("g").setSessionTimeoutMs(6_000)
                .setRebalanceTimeoutMs(10_000))).isEqualTo(Duration.ofSeconds(30));
        assertThat(deadlines.of(new LeaveGroupRequestData().setGroupId("g"))).isEqualTo(Duration.ofSeconds(30));
    }
}
