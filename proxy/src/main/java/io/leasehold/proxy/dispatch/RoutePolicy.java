package io.leasehold.proxy.dispatch;

import io.leasehold.proxy.owners.Route;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Which APIs the proxy serves, how, and up to which version. APIs that are not listed are not
 * advertised: they either address a single broker's internals (log dirs, replica moves,
 * controller and KRaft APIs), need a transaction coordinator the ownership contract does not
 * have, or (Produce v10+, Fetch v16+) carry broker addresses the proxy does not rewrite.
 */
public final class RoutePolicy {
    /** Produce v10+ adds node_endpoints and current_leader (broker addresses). */
    public static final short PRODUCE_MAX = 9;
    /** Fetch v16+ adds node_endpoints and current_leader (broker addresses). */
    public static final short FETCH_MAX = 15;

    /** Requests that only read, so a broker that does not answer may be replaced by the next one. */
    private static final Set<ApiKeys> READS = EnumSet.of(ApiKeys.METADATA, ApiKeys.DESCRIBE_CLUSTER,
            ApiKeys.DESCRIBE_CONFIGS, ApiKeys.LIST_GROUPS, ApiKeys.DESCRIBE_ACLS, ApiKeys.DESCRIBE_CLIENT_QUOTAS);

    private final Map<ApiKeys, Route> routes;
    private final Map<ApiKeys, Short> caps;

    /** The proxy's policy: which APIs it serves and how. */
    public RoutePolicy() {
        Map<ApiKeys, Route> r = new EnumMap<>(ApiKeys.class);
        r.put(ApiKeys.API_VERSIONS, Route.LOCAL);
        r.put(ApiKeys.FIND_COORDINATOR, Route.LOCAL);
        r.put(ApiKeys.METADATA, Route.METADATA);
        r.put(ApiKeys.PRODUCE, Route.PARTITIONED);
        r.put(ApiKeys.FETCH, Route.PARTITIONED);
        r.put(ApiKeys.LIST_OFFSETS, Route.PARTITIONED);
        r.put(ApiKeys.OFFSET_FOR_LEADER_EPOCH, Route.PARTITIONED);
        for (ApiKeys api : new ApiKeys[] {ApiKeys.JOIN_GROUP, ApiKeys.SYNC_GROUP, ApiKeys.HEARTBEAT,
                ApiKeys.LEAVE_GROUP, ApiKeys.OFFSET_COMMIT, ApiKeys.OFFSET_FETCH, ApiKeys.DESCRIBE_GROUPS,
                ApiKeys.DELETE_GROUPS, ApiKeys.OFFSET_DELETE, ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                ApiKeys.CONSUMER_GROUP_DESCRIBE}) {
            r.put(api, Route.GROUP);
        }
        for (ApiKeys api : new ApiKeys[] {ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS, ApiKeys.CREATE_PARTITIONS,
                ApiKeys.INIT_PRODUCER_ID, ApiKeys.DESCRIBE_CONFIGS, ApiKeys.ALTER_CONFIGS,
                ApiKeys.INCREMENTAL_ALTER_CONFIGS, ApiKeys.DESCRIBE_ACLS, ApiKeys.CREATE_ACLS,
                ApiKeys.DELETE_ACLS, ApiKeys.DESCRIBE_CLIENT_QUOTAS, ApiKeys.ALTER_CLIENT_QUOTAS}) {
            r.put(api, Route.ANY_BROKER);
        }
        r.put(ApiKeys.DESCRIBE_CLUSTER, Route.ANY_BROKER_REWRITTEN);
        r.put(ApiKeys.LIST_GROUPS, Route.ALL_BROKERS);
        this.routes = Collections.unmodifiableMap(r);
        Map<ApiKeys, Short> c = new EnumMap<>(ApiKeys.class);
        c.put(ApiKeys.PRODUCE, PRODUCE_MAX);
        c.put(ApiKeys.FETCH, FETCH_MAX);
        this.caps = Collections.unmodifiableMap(c);
    }

    /** How {@code api} is served, or null if the proxy does not serve it. */
    Route route(ApiKeys api) {
        return routes.get(api);
    }

    /** True if {@code api} only reads, so it may be sent again to another broker after a timeout. */
    boolean reads(ApiKeys api) {
        return READS.contains(api);
    }

    Map<ApiKeys, Route> routes() {
        return routes;
    }

    /** Every API the proxy serves, so the only ones it may advertise. */
    public Set<ApiKeys> served() {
        return routes.keySet();
    }

    /** Highest version the proxy can serve for {@code api}, before intersecting with the backends. */
    public short maxVersion(ApiKeys api) {
        return (short) Math.min(api.latestVersion(), caps.getOrDefault(api, api.latestVersion()));
    }

    public short minVersion(ApiKeys api) {
        return api.oldestVersion();
    }
}
