package io.leasehold.broker.group;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/** One member of a classic consumer group; guarded by its group's monitor. */
final class GroupMember {

    /** A protocol the member supports, with its subscription metadata. */
    record Protocol(String name, byte[] metadata) {
    }

    final String memberId;
    final String groupInstanceId;
    final String clientId;
    final String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    List<Protocol> protocols;
    byte[] assignment = new byte[0];
    CompletableFuture<JoinGroupResponseData> pendingJoin;
    CompletableFuture<SyncGroupResponseData> pendingSync;
    ScheduledFuture<?> sessionExpiry;

    GroupMember(String memberId, String groupInstanceId, String clientId, String clientHost) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
    }

    byte[] metadataFor(String protocol) {
        return protocols.stream().filter(p -> p.name().equals(protocol)).map(Protocol::metadata).findFirst().orElse(new byte[0]);
    }

    boolean supports(String protocol) {
        return protocols.stream().anyMatch(p -> p.name().equals(protocol));
    }
}
