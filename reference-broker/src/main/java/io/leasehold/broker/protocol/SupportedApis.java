package io.leasehold.broker.protocol;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The APIs this broker serves, each with the version range it serves correctly and its
 * handler. ApiVersions advertises exactly this table; nothing else is ever accepted.
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

    public SupportedApis add(ApiKeys api, int min, int max, ApiHandler handler) {
        served.put(api, new Served(api, (short) min, (short) max, handler));
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
        return versions;
    }

    public ApiVersionsResponseData apiVersionsResponse(short errorCode) {
        return new ApiVersionsResponseData().setErrorCode(errorCode).setApiKeys(apiVersions());
    }
}
