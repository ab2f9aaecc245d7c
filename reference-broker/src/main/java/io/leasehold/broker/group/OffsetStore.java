package io.leasehold.broker.group;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.leasehold.broker.etcd.BrokerKeys;
import io.leasehold.broker.etcd.Etcd;
import io.leasehold.routing.claim.Claim;
import io.leasehold.routing.claim.OwnershipClaimer;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Committed group offsets in etcd at {@code P/groups/{group}/offsets/{topic}/{partition}}.
 * Commits are fenced on the group's coordinator claim, so a coordinator that lost the group
 * cannot overwrite what the new one accepted.
 */
public final class OffsetStore {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Etcd etcd;
    private final BrokerKeys keys;
    private final OwnershipClaimer claimer;

    /** One committed offset. */
    public record CommittedOffset(long offset, int leaderEpoch, String metadata) {
    }

    public OffsetStore(Etcd etcd, BrokerKeys keys, OwnershipClaimer claimer) {
        this.etcd = etcd;
        this.keys = keys;
        this.claimer = claimer;
    }

    /** @return false when the claim no longer stands and nothing was committed */
    public CompletableFuture<Boolean> commit(Claim claim, String group, Map<TopicPartition, CommittedOffset> offsets) {
        Map<String, String> puts = new LinkedHashMap<>();
        offsets.forEach((partition, offset) -> {
            ObjectNode node = JSON.createObjectNode();
            node.put("offset", offset.offset());
            node.put("leaderEpoch", offset.leaderEpoch());
            node.put("metadata", offset.metadata());
            puts.put(keys.groupOffsetKey(group, partition.topic(), partition.partition()), node.toString());
        });
        return claimer.commitFenced(claim, puts);
    }

    /**
     * Deletes every committed offset of the group. Not fenced: DeleteGroups calls it only for an
     * empty group this broker coordinates, and offsets a stale coordinator commits afterwards would
     * be refused by their own fence.
     */
    public CompletableFuture<Void> deleteAll(String group) {
        return etcd.deletePrefix(keys.groupOffsetsPrefix(group));
    }

    /** Every committed offset of the group. */
    public CompletableFuture<Map<TopicPartition, CommittedOffset>> fetch(String group) {
        String prefix = keys.groupOffsetsPrefix(group);
        return etcd.getPrefix(prefix).thenApply(values -> {
            Map<TopicPartition, CommittedOffset> offsets = new HashMap<>();
            values.forEach((key, json) -> {
                String rest = key.substring(prefix.length());
                int slash = rest.lastIndexOf('/');
                if (slash <= 0) {
                    return;
                }
                try {
                    JsonNode node = JSON.readTree(json);
                    offsets.put(new TopicPartition(rest.substring(0, slash), Integer.parseInt(rest.substring(slash + 1))),
                            new CommittedOffset(node.get("offset").asLong(), node.get("leaderEpoch").asInt(),
                                    node.hasNonNull("metadata") ? node.get("metadata").asText() : null));
                } catch (IOException | RuntimeException e) {
                    throw new IllegalStateException("committed offset " + key + " is malformed: " + json, e);
                }
            });
            return offsets;
        });
    }
}
