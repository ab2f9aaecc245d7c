package io.leasehold.proxy.protocol;

import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.protocol.ApiMessage;

/** The requests that are about one consumer group, read by the group forwarding and by the access checks alike. */
public final class SingleGroupRequests {
    private SingleGroupRequests() {
    }

    /** The consumer group a single-group request names, or null if it names none. */
    public static String groupOf(ApiMessage body) {
        String group;
        if (body instanceof JoinGroupRequestData r) {
            group = r.groupId();
        } else if (body instanceof SyncGroupRequestData r) {
            group = r.groupId();
        } else if (body instanceof HeartbeatRequestData r) {
            group = r.groupId();
        } else if (body instanceof LeaveGroupRequestData r) {
            group = r.groupId();
        } else if (body instanceof OffsetCommitRequestData r) {
            group = r.groupId();
        } else if (body instanceof OffsetFetchRequestData r) {
            group = r.groupId();
        } else if (body instanceof OffsetDeleteRequestData r) {
            group = r.groupId();
        } else if (body instanceof ConsumerGroupHeartbeatRequestData r) {
            group = r.groupId();
        } else {
            group = null;
        }
        return group;
    }
}
