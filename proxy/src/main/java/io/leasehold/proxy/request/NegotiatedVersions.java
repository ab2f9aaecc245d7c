package io.leasehold.proxy.request;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * The API version ranges one client connection was told in its ApiVersions answer. The proxy
 * holds the connection to them for its life, so a broker joining or leaving the cluster mid-session
 * (a rolling upgrade) never turns a version the client was promised into UNSUPPORTED_VERSION.
 */
public final class NegotiatedVersions {

    private volatile ApiVersionsResponseData told;

    /** Remembers the answer the connection was sent; the proxy must not modify it afterwards. */
    public void remember(ApiVersionsResponseData answer) {
        told = answer;
    }

    /** Whether the connection has been sent an ApiVersions answer yet. */
    public boolean isNegotiated() {
        return told != null;
    }

    /** Whether {@code version} of {@code api} lies in the negotiated range; false before negotiation. */
    public boolean allows(ApiKeys api, short version) {
        ApiVersionsResponseData answer = told;
        if (answer == null) {
            return false;
        }
        ApiVersion range = answer.apiKeys().find(api.id);
        return range != null && version >= range.minVersion() && version <= range.maxVersion();
    }
}
