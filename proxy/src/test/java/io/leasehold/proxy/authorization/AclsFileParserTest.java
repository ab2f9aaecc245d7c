package io.leasehold.proxy.authorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/** The ACL file format: what it accepts, and where it says a bad file is wrong. */
class AclsFileParserTest {
    private final AclsFileParser parser = new AclsFileParser();

    @Test
    void readsOneBindingPerOperationWithLiteralAsTheDefaultPattern() throws AclsFileException {
        List<AclBinding> bindings = parser.parse("""
                acls:
                  - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: orders,
                     operations: [WRITE, DESCRIBE], permission: ALLOW}
                  - {principal: "User:*", resourceType: group, name: "*", operations: [read], permission: deny}
                  - {principal: "User:admin", resourceType: CLUSTER, operations: [ALL], permission: ALLOW}
                """, "acls.yaml");

        assertThat(bindings).containsExactly(
                binding("User:alice", ResourceType.TOPIC, "orders", PatternType.PREFIXED, AclOperation.WRITE,
                        AclPermissionType.ALLOW),
                binding("User:alice", ResourceType.TOPIC, "orders", PatternType.PREFIXED, AclOperation.DESCRIBE,
                        AclPermissionType.ALLOW),
                binding("User:*", ResourceType.GROUP, "*", PatternType.LITERAL, AclOperation.READ,
                        AclPermissionType.DENY),
                binding("User:admin", ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL, AclOperation.ALL,
                        AclPermissionType.ALLOW));
    }

    @Test
    void anEmptyListIsValidAndDeniesEverything() throws AclsFileException {
        assertThat(parser.parse("acls: []\n", "acls.yaml")).isEmpty();
    }

    @Test
    void reportsEveryProblemWithFileEntryLineAndKey() {
        assertThatThrownBy(() -> parser.parse("""
                acls:
                  - principal: "User:alice"
                    resourceType: TOPIC
                    name: orders
                    operations: [WRTIE]
                    permission: ALLOW
                  - principal: "Group:ops"
                    resourceType: CLUSTER
                    name: mine
                    operations: [READ]
                    permission: MAYBE
                    colour: red
                  - {principal: "User:bob", resourceType: TOPIC, patternType: PREFIXED, name: "*",
                     operations: [], permission: ALLOW}
                """, "/etc/acls.yaml"))
                .isInstanceOf(AclsFileException.class)
                .satisfies(e -> assertThat(((AclsFileException) e).problems()).containsExactlyInAnyOrder(
                        "/etc/acls.yaml: acls[0] (line 2).operations[0]: unknown value \"WRTIE\" (expected one of "
                                + "READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS, "
                                + "IDEMPOTENT_WRITE, CLUSTER_ACTION, ALL)",
                        "/etc/acls.yaml: acls[1] (line 7).colour: unknown key (known: name, operations, patternType, "
                                + "permission, principal, resourceType)",
                        "/etc/acls.yaml: acls[1] (line 7).principal: \"Group:ops\" is not \"User:NAME\" or \"User:*\" "
                                + "(the proxy's principals are users)",
                        "/etc/acls.yaml: acls[1] (line 7).permission: unknown value \"MAYBE\" (expected one of ALLOW, DENY)",
                        "/etc/acls.yaml: acls[1] (line 7).name: a CLUSTER rule's name is \"kafka-cluster\" (or left "
                                + "out), not \"mine\"",
                        "/etc/acls.yaml: acls[1] (line 7).operations[0]: READ does not apply to CLUSTER (applies: ALL, "
                                + "ALTER, ALTER_CONFIGS, CLUSTER_ACTION, CREATE, DESCRIBE, DESCRIBE_CONFIGS, "
                                + "IDEMPOTENT_WRITE)",
                        "/etc/acls.yaml: acls[2] (line 13).name: \"*\" with PREFIXED is no wildcard: use patternType "
                                + "LITERAL with name \"*\"",
                        "/etc/acls.yaml: acls[2] (line 13).operations: expected a non-empty list of operations"));
    }

    @Test
    void notYamlOrNoAclListIsReportedWithTheFile() {
        assertThatThrownBy(() -> parser.parse("acls: [ {", "a.yaml")).isInstanceOf(AclsFileException.class)
                .hasMessageStartingWith("a.yaml: not valid YAML at line");
        assertThatThrownBy(() -> parser.parse("rules: []\n", "b.yaml")).isInstanceOf(AclsFileException.class)
                .hasMessageContaining("b.yaml: rules (line 1): unknown key (known: acls)")
                .hasMessageContaining("b.yaml: expected a list 'acls' at the top level");
        assertThatThrownBy(() -> parser.parse("- a\n", "c.yaml")).isInstanceOf(AclsFileException.class)
                .hasMessage("c.yaml: expected a mapping with a list 'acls' at the top level");
    }

    private static AclBinding binding(String principal, ResourceType type, String name, PatternType pattern,
                                      AclOperation operation, AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, permission));
    }
}
