package io.leasehold.proxy.authorization;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Counts authorization denials as {@code leasehold_authorization_denials_total} by resource type
 * and operation (never by resource name: topic and group names are unbounded), and ACL file
 * reloads as {@code leasehold_authorization_reloads_total} by outcome ("success", "failure").
 */
public final class AuthorizationMetrics {
    private final MeterRegistry registry;
    private final Map<String, Counter> counters = new ConcurrentHashMap<>();

    public AuthorizationMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /** A request (or one partition, group or resource of it) was refused. */
    void denied(ResourceType type, AclOperation operation) {
        counters.computeIfAbsent("denied/" + type + '/' + operation, key -> Counter
                .builder("leasehold.authorization.denials")
                .description("Requests, partitions, groups or resources refused by the ACLs, by resource type and "
                        + "operation")
                .tag("resource_type", type.name())
                .tag("operation", operation.name())
                .register(registry)).increment();
    }

    /** The ACL file changed and was loaded ({@code true}), or could not be used and the old rules stayed. */
    void reloaded(boolean success) {
        String outcome = success ? "success" : "failure";
        counters.computeIfAbsent("reload/" + outcome, key -> Counter
                .builder("leasehold.authorization.reloads")
                .description("Reloads of a changed ACL file, by outcome (a failure keeps the previous rules)")
                .tag("outcome", outcome)
                .register(registry)).increment();
    }
}
