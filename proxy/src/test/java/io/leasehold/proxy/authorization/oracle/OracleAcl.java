package io.leasehold.proxy.authorization.oracle;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * One ACL rule in the single form both authorities are given: Kafka gets it as an
 * {@link AclBinding}, the proxy as one entry of its ACL file. Converting in one place means the
 * two rule sets cannot drift apart.
 */
record OracleAcl(String principal, ResourceType type, PatternType pattern, String name, AclOperation operation,
                 AclPermissionType permission) {

    /** Kafka's form, for {@code Admin.createAcls}; any host. */
    AclBinding binding() {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, permission));
    }

    /** The proxy's form: one flow-mapping entry of the {@code acls:} list. */
    String yaml() {
        return "  - {principal: \"" + principal + "\", resourceType: " + type + ", patternType: " + pattern
                + ", name: \"" + name + "\", operations: [" + operation + "], permission: " + permission + "}\n";
    }

    @Override
    public String toString() {
        return permission + " " + principal + " " + operation + " on " + type + " " + pattern + " '" + name + "'";
    }
}
