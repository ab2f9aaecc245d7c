package io.leasehold.proxy.access;

import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;

/** Leaves out of one answer, or marks refused in it, what the requesting principal may not see. */
@FunctionalInterface
public interface AnswerFilter {

    /**
     * The answer as the principal may see it.
     *
     * @param topicNames names of the ids {@link #topicIdsToName} asked for, as far as they are known
     */
    ApiMessage visible(ApiMessage answer, Map<Uuid, String> topicNames);

    /** Topic ids in {@code answer} whose names the decision needs, since ACLs name topics. */
    default Set<Uuid> topicIdsToName(ApiMessage answer) {
        return Set.of();
    }

    /** The answer as it is. */
    static AnswerFilter unchanged() {
        return (answer, topicNames) -> answer;
    }
}
