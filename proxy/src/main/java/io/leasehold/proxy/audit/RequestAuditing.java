package io.leasehold.proxy.audit;

import io.leasehold.proxy.authorization.Authorizer;
import java.time.Clock;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * Gives each request the authorizer it is decided by: the proxy's own when there is no audit
 * log, otherwise an {@link AuditingAuthorizer} that knows the request's API and client.
 */
public final class RequestAuditing {
    private final AuditLog log;
    private final AllowedAccessSampler sampler;
    private final Clock clock;

    /** @param sampler which allowed reads and writes to write; null to write none */
    public RequestAuditing(AuditLog log, AllowedAccessSampler sampler, Clock clock) {
        this.log = log;
        this.sampler = sampler;
        this.clock = clock;
    }

    /** No audit log: every request is decided by the proxy's authorizer as it is. */
    public static RequestAuditing off() {
        return new RequestAuditing(AuditLog.none(), null, Clock.systemUTC());
    }

    /** The authorizer that decides one request of {@code api} from {@code clientAddress}. */
    public Authorizer authorizerFor(Authorizer authorizer, ApiKeys api, String clientAddress, String clientId) {
        return log.enabled() ? new AuditingAuthorizer(authorizer, log, sampler, clock, api, clientAddress, clientId)
                : authorizer;
    }
}
