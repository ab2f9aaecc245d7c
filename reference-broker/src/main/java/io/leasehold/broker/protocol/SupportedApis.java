package io.leasehold.broker.protocol;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this broker serves, each with the version range it serves correctly and its
 * handler. ApiVersions advertises exactly this table, plus any API keys listed as unsupported
 * with the range {@code -1..-1} (as KafScale brokers do); nothing else is ever accepted.
 */
public final class SupportedApis {

    /** A served API: versions {@code min..max} inclusive. */
    public record Served(ApiKeys api, short min, short max, ApiHandler handler) {

        public Served {
            if (min < api.oldestVersion() || max > api.latestVersion() || min > max) {
                throw new IllegalArgumentException(api + " versions " + min + ".." + max
                        + " are outside what kafka-clients knows: " + api.oldestVersion() + ".." + api.latestVersion());
            }
        }

        public boolean supports(short version) {
            return version >= min && version <= max;
        }
    }

    private final Map<ApiKeys, Served> served = new EnumMap<>(ApiKeys.class);
    private final Set<Short> unsupported = new TreeSet<>();

    public SupportedApis add(ApiKeys api, int min, int max, ApiHandler handler) {
        served.put(api, new Served(api, (short) min, (short) max, handler));
        return this;
    }

    /** Lists API keys (by number, as some are unknown to kafka-clients) as {@code -1..-1}: present but not supported. */
    public SupportedApis unsupported(int... apiKeys) {
        for (int key : apiKeys) {
            unsupported.add((short) key);
        }
        return this;
    }

    /** The served API, or null when the key is not served at all. */
    public Served get(ApiKeys api) {
        return served.get(api);
    }

    public Map<ApiKeys, Served> all() {
        return Collections.unmodifiableMap(served);
    }

    /** The advertised ranges, as an ApiVersions response lists them. */
    public ApiVersionCollection apiVersions() {
        ApiVersionCollection versions = new ApiVersionCollection();
        served.values().forEach(api -> versions.add(new ApiVersion()
                .setApiKey(api.api().id).setMinVersion(api.min()).setMaxVersion(api.max())));
        unsupported.forEach(key -> versions.add(new ApiVersion().setApiKey(key).setMinVersion((short) -1)
                .setMaxVersion((short) -1)));
        return versions;
    }

    public ApiVersionsResponseData apiVersionsResponse(short errorCode) {
        return new ApiVersionsResponseData().setErrorCode(errorCode).setApiKeys(apiVersions());
    }
}
