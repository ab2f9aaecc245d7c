package io.leasehold.proxy.dispatch;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * How long the proxy waits for a broker's answer to a consumer-group request. A broker parks a
 * JoinGroup until every member has rejoined or the rebalance timeout passes, and a SyncGroup or
 * Heartbeat may wait for the group's session timeout; cutting them at the general request
 * timeout would fail healthy rebalances. Those requests get their own bound plus {@link #MARGIN},
 * never less than the general request timeout. SyncGroup and Heartbeat carry no timeout, so the
 * session timeout is the one the group's members last joined with through this proxy.
 */
final class GroupDeadlines {
    /** Slack for the broker's reply after its own timer fired; below the Java client's own 5 s. */
    static final Duration MARGIN = Duration.ofSeconds(3);
    /** Bound on remembered groups; past it the memory starts afresh (a forgotten group gets the floor). */
    private static final int MAX_GROUPS = 10_000;

    private final Duration floor;
    private final Map<String, Integer> sessionTimeoutMs = new ConcurrentHashMap<>();

    /** @param floor {@code backends.requestTimeout}, the bound for every other request */
    GroupDeadlines(Duration floor) {
        this.floor = floor;
    }

    /** The deadline for a group request with this body (decoded by the caller). */
    Duration of(ApiMessage body) {
        long waitMs;
        if (body instanceof JoinGroupRequestData join) {
            remember(join.groupId(), join.sessionTimeoutMs());
            // v0 has no rebalance timeout (-1): the broker then waits the session timeout.
            waitMs = join.rebalanceTimeoutMs() > 0 ? join.rebalanceTimeoutMs() : join.sessionTimeoutMs();
        } else if (body instanceof SyncGroupRequestData sync) {
            waitMs = sessionTimeoutMs.getOrDefault(sync.groupId(), 0);
        } else if (body instanceof HeartbeatRequestData heartbeat) {
            waitMs = sessionTimeoutMs.getOrDefault(heartbeat.groupId(), 0);
        } else {
            return floor;
        }
        Duration own = Duration.ofMillis(Math.max(0, waitMs)).plus(MARGIN);
        return own.compareTo(floor) > 0 ? own : floor;
    }

    private void remember(String group, int timeoutMs) {
        if (sessionTimeoutMs.size() >= MAX_GROUPS && !sessionTimeoutMs.containsKey(group)) {
            sessionTimeoutMs.clear();
        }
        sessionTimeoutMs.put(group, timeoutMs);
    }
}
