package io.leasehold.proxy.exchange;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.Uuid;

/** Maps topic ids (Fetch v13+) to names, the key of the ownership table. */
public interface TopicNameResolver {
    /** Names for as many of {@code ids} as are known; unknown ids are absent from the result. */
    CompletableFuture<Map<Uuid, String>> resolve(Set<Uuid> ids);
}
