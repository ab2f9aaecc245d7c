package io.leasehold.proxy.authorization.oracle;

import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Which versions of an API the oracle sends: the lowest and highest the proxy advertises, and
 * those three clients send, each clamped into the advertised range. kafka-clients 4.4 sends its
 * latest version; librdkafka 2.0.2 the highest its request builders select
 * ({@code rd_kafka_buf_ApiVersion_select} in {@code rdkafka_request.c}); kafkajs 2.2 the highest
 * its {@code src/protocol/requests/NAME/index.js} knows.
 */
final class OracleVersions {
    private static final Map<ApiKeys, Integer> LIBRDKAFKA_2_0 = Map.ofEntries(
            Map.entry(ApiKeys.PRODUCE, 7), Map.entry(ApiKeys.FETCH, 11), Map.entry(ApiKeys.LIST_OFFSETS, 2),
            Map.entry(ApiKeys.METADATA, 4), Map.entry(ApiKeys.OFFSET_COMMIT, 7), Map.entry(ApiKeys.OFFSET_FETCH, 7),
            Map.entry(ApiKeys.FIND_COORDINATOR, 2), Map.entry(ApiKeys.JOIN_GROUP, 5), Map.entry(ApiKeys.HEARTBEAT, 3),
            Map.entry(ApiKeys.LEAVE_GROUP, 1), Map.entry(ApiKeys.SYNC_GROUP, 3), Map.entry(ApiKeys.DESCRIBE_GROUPS, 4),
            Map.entry(ApiKeys.LIST_GROUPS, 4), Map.entry(ApiKeys.API_VERSIONS, 3), Map.entry(ApiKeys.CREATE_TOPICS, 4),
            Map.entry(ApiKeys.DELETE_TOPICS, 1), Map.entry(ApiKeys.INIT_PRODUCER_ID, 4),
            Map.entry(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2), Map.entry(ApiKeys.DESCRIBE_ACLS, 1),
            Map.entry(ApiKeys.CREATE_ACLS, 1), Map.entry(ApiKeys.DELETE_ACLS, 1), Map.entry(ApiKeys.DESCRIBE_CONFIGS, 1),
            Map.entry(ApiKeys.ALTER_CONFIGS, 1), Map.entry(ApiKeys.CREATE_PARTITIONS, 0),
            Map.entry(ApiKeys.DELETE_GROUPS, 1), Map.entry(ApiKeys.INCREMENTAL_ALTER_CONFIGS, 1),
            Map.entry(ApiKeys.OFFSET_DELETE, 0));
    private static final Map<ApiKeys, Integer> KAFKAJS_2_2 = Map.ofEntries(
            Map.entry(ApiKeys.PRODUCE, 7), Map.entry(ApiKeys.FETCH, 11), Map.entry(ApiKeys.LIST_OFFSETS, 3),
            Map.entry(ApiKeys.METADATA, 6), Map.entry(ApiKeys.OFFSET_COMMIT, 5), Map.entry(ApiKeys.OFFSET_FETCH, 4),
            Map.entry(ApiKeys.FIND_COORDINATOR, 2), Map.entry(ApiKeys.JOIN_GROUP, 5), Map.entry(ApiKeys.HEARTBEAT, 3),
            Map.entry(ApiKeys.LEAVE_GROUP, 3), Map.entry(ApiKeys.SYNC_GROUP, 3), Map.entry(ApiKeys.DESCRIBE_GROUPS, 2),
            Map.entry(ApiKeys.LIST_GROUPS, 2), Map.entry(ApiKeys.API_VERSIONS, 2), Map.entry(ApiKeys.CREATE_TOPICS, 3),
            Map.entry(ApiKeys.DELETE_TOPICS, 1), Map.entry(ApiKeys.INIT_PRODUCER_ID, 1),
            Map.entry(ApiKeys.DESCRIBE_ACLS, 1), Map.entry(ApiKeys.CREATE_ACLS, 1), Map.entry(ApiKeys.DELETE_ACLS, 1),
            Map.entry(ApiKeys.DESCRIBE_CONFIGS, 2), Map.entry(ApiKeys.ALTER_CONFIGS, 1),
            Map.entry(ApiKeys.CREATE_PARTITIONS, 1), Map.entry(ApiKeys.DELETE_GROUPS, 1));

    private OracleVersions() {
    }

    /** The distinct versions to send for {@code api} when the proxy advertises {@code min..max}. */
    static TreeSet<Short> of(ApiKeys api, short min, short max) {
        TreeSet<Short> versions = new TreeSet<>();
        versions.add(min);
        versions.add(max);
        versions.add(clamp(api.latestVersion(), min, max));
        if (LIBRDKAFKA_2_0.containsKey(api)) {
            versions.add(clamp(LIBRDKAFKA_2_0.get(api), min, max));
        }
        if (KAFKAJS_2_2.containsKey(api)) {
            versions.add(clamp(KAFKAJS_2_2.get(api), min, max));
        }
        return versions;
    }

    /** One of {@code versions}, chosen by {@code random}: a bounded run samples, a long one covers them all. */
    static short pick(TreeSet<Short> versions, Random random) {
        return versions.stream().skip(random.nextInt(versions.size())).findFirst().orElseThrow();
    }

    private static short clamp(int version, short min, short max) {
        return (short) Math.max(min, Math.min(max, version));
    }
}
