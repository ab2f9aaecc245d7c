package io.leasehold.proxy.authorization;

import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;

/**
 * Decides whether a client's principal may do an operation on a resource. With authorization
 * off ({@link #open()}) everything is allowed; with it on ({@link AclAuthorizer}) only what the
 * ACLs allow.
 */
public interface Authorizer {

    /** Whether the proxy authorizes requests at all (ACL APIs are then answered, not forwarded). */
    boolean enabled();

    /** Whether {@code principal} may do {@code operation} on {@code type}/{@code name}; a denial is counted and logged. */
    boolean allows(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name);

    /** Like {@link #allows} but silent: for lists the proxy filters (metadata of all topics, group listings). */
    boolean allowsQuietly(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name);

    /** Kafka's "on some resource of this type" test (idempotent producers without IDEMPOTENT_WRITE). */
    boolean allowsAny(KafkaPrincipal principal, AclOperation operation, ResourceType type);

    /** The rules in force, one binding per operation; empty when authorization is off. */
    List<AclBinding> bindings();

    /** Authorization off: every request is allowed. */
    static Authorizer open() {
        return new Authorizer() {
            @Override
            public boolean enabled() {
                return false;
            }

            @Override
            public boolean allows(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name) {
                return true;
            }

            @Override
            public boolean allowsQuietly(KafkaPrincipal principal, AclOperation operation, ResourceType type,
                                         String name) {
                return true;
            }

            @Override
            public boolean allowsAny(KafkaPrincipal principal, AclOperation operation, ResourceType type) {
                return true;
            }

            @Override
            public List<AclBinding> bindings() {
                return List.of();
            }
        };
    }
}
