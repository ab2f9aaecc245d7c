package io.leasehold.proxy.authorization;

import io.leasehold.proxy.logging.ClientText;
import io.leasehold.proxy.logging.WarningRateLimiter;
import java.util.List;
import java.util.function.Supplier;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Authorization on: checks each request against the rules in force (read afresh on every check,
 * so a reload applies to the next request), counts every denial by resource type and operation,
 * and logs one line per principal, resource type and operation per minute.
 */
public final class AclAuthorizer implements Authorizer {
    private static final Logger LOG = LoggerFactory.getLogger(AclAuthorizer.class);
    private static final long DENIAL_LOG_INTERVAL_MILLIS = 60_000;

    private final Supplier<AclRules> rules;
    private final AuthorizationMetrics metrics;
    private final WarningRateLimiter denialLog = new WarningRateLimiter(DENIAL_LOG_INTERVAL_MILLIS, System::nanoTime);

    /** @param rules the rules in force, e.g. {@link AclsFile#current()} */
    public AclAuthorizer(Supplier<AclRules> rules, AuthorizationMetrics metrics) {
        this.rules = rules;
        this.metrics = metrics;
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public boolean allows(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name) {
        if (rules.get().allows(principal, operation, type, name)) {
            return true;
        }
        metrics.denied(type, operation);
        denialLog.warn(LOG, principal + " " + operation + " " + type,
                "Denied {} {} on {} {} (no ALLOW rule in the ACL file matches, or a DENY rule does)", principal,
                operation, type, ClientText.escape(name));
        return false;
    }

    @Override
    public boolean allowsQuietly(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name) {
        return rules.get().allows(principal, operation, type, name);
    }

    @Override
    public boolean allowsAny(KafkaPrincipal principal, AclOperation operation, ResourceType type) {
        return rules.get().allowsAny(principal, operation, type);
    }

    @Override
    public List<AclBinding> bindings() {
        return rules.get().bindings();
    }
}
