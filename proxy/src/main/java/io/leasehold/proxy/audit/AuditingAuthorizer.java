package io.leasehold.proxy.audit;

import io.leasehold.proxy.authorization.Authorizer;
import java.time.Clock;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * The authorizer as one request sees it: decides as {@code delegate} does and reports to the
 * audit log every denial, every allowed decision of a mutating API, and (when
 * {@code sampler} is given) allowed reads and writes at most once a minute per principal and
 * resource. Only the checks that decide a request ({@link #allows}) are reported; the quiet checks
 * that filter listings are not.
 */
public final class AuditingAuthorizer implements Authorizer {
    /**
     * APIs whose allowed decisions are always written: they change topics, configs, groups, records,
     * committed offsets or ACLs. TxnOffsetCommit is listed although the proxy refuses transactions
     * today, so that serving it later cannot leave its commits out of the log.
     */
    private static final Set<ApiKeys> MUTATIONS = EnumSet.of(ApiKeys.CREATE_TOPICS, ApiKeys.DELETE_TOPICS,
            ApiKeys.CREATE_PARTITIONS, ApiKeys.ALTER_CONFIGS, ApiKeys.INCREMENTAL_ALTER_CONFIGS,
            ApiKeys.DELETE_GROUPS, ApiKeys.DELETE_RECORDS, ApiKeys.OFFSET_COMMIT, ApiKeys.TXN_OFFSET_COMMIT,
            ApiKeys.OFFSET_DELETE, ApiKeys.ALTER_CLIENT_QUOTAS,
            ApiKeys.CREATE_ACLS, ApiKeys.DELETE_ACLS, ApiKeys.ALTER_PARTITION_REASSIGNMENTS, ApiKeys.ELECT_LEADERS,
            ApiKeys.ALTER_REPLICA_LOG_DIRS, ApiKeys.ALTER_USER_SCRAM_CREDENTIALS);

    private final Authorizer delegate;
    private final AuditLog log;
    private final AllowedAccessSampler sampler;
    private final Clock clock;
    private final ApiKeys api;
    private final String clientAddress;
    private final String clientId;

    /**
     * @param sampler       which allowed reads and writes to write; null to write none of them
     * @param api           the request being decided
     * @param clientAddress the client's address, as the connection names it
     * @param clientId      the client id in the request header
     */
    public AuditingAuthorizer(Authorizer delegate, AuditLog log, AllowedAccessSampler sampler, Clock clock,
                              ApiKeys api, String clientAddress, String clientId) {
        this.delegate = delegate;
        this.log = log;
        this.sampler = sampler;
        this.clock = clock;
        this.api = api;
        this.clientAddress = clientAddress;
        this.clientId = clientId;
    }

    @Override
    public boolean enabled() {
        return delegate.enabled();
    }

    @Override
    public boolean allows(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name) {
        boolean allowed = delegate.allows(principal, operation, type, name);
        if (!allowed || MUTATIONS.contains(api)
                || sampler != null && sampler.due(principal.toString(), type + ":" + name)) {
            log.record(new AuditEvent(clock.instant(), principal.toString(), clientAddress, clientId, api.name,
                    operation.name(), type.name(), name,
                    allowed ? AuditEvent.Decision.ALLOW : AuditEvent.Decision.DENY));
        }
        return allowed;
    }

    @Override
    public boolean allowsQuietly(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name) {
        return delegate.allowsQuietly(principal, operation, type, name);
    }

    @Override
    public boolean allowsAny(KafkaPrincipal principal, AclOperation operation, ResourceType type) {
        return delegate.allowsAny(principal, operation, type);
    }

    @Override
    public List<AclBinding> bindings() {
        return delegate.bindings();
    }
}
