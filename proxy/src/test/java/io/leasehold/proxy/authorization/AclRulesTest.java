package io.leasehold.proxy.authorization;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/** Kafka's ACL matching rules, as the proxy's index applies them. */
class AclRulesTest {
    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob");

    private static AclBinding rule(String principal, ResourceType type, PatternType pattern, String name,
                                   AclOperation operation, AclPermissionType permission) {
        return new AclBinding(new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, "*", operation, permission));
    }

    private static AclBinding allow(String principal, PatternType pattern, String topic, AclOperation operation) {
        return rule(principal, ResourceType.TOPIC, pattern, topic, operation, AclPermissionType.ALLOW);
    }

    private static AclBinding deny(String principal, PatternType pattern, String topic, AclOperation operation) {
        return rule(principal, ResourceType.TOPIC, pattern, topic, operation, AclPermissionType.DENY);
    }

    @Test
    void withoutAnyMatchingRuleEverythingIsDenied() {
        AclRules rules = AclRules.of(List.of(allow("User:alice", PatternType.LITERAL, "orders", AclOperation.WRITE)));

        assertThat(AclRules.none().allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isFalse();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "orders")).isFalse();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders-eu")).isFalse();
        assertThat(rules.allows(BOB, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isFalse();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.GROUP, "orders")).isFalse();
    }

    @Test
    void denyWinsOverAllowFromAnyPattern() {
        AclRules rules = AclRules.of(List.of(
                allow("User:*", PatternType.LITERAL, "*", AclOperation.ALL),
                deny("User:alice", PatternType.PREFIXED, "secret-", AclOperation.READ),
                deny("User:*", PatternType.LITERAL, "payroll", AclOperation.ALL)));

        assertThat(rules.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "secret-plans")).isFalse();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "secret-plans"))
                .as("DENY READ leaves WRITE alone").isTrue();
        assertThat(rules.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "secret-plans")).isTrue();
        assertThat(rules.allows(BOB, AclOperation.DESCRIBE, ResourceType.TOPIC, "payroll"))
                .as("DENY ALL denies every operation").isFalse();
    }

    @Test
    void prefixedRulesMatchNamesStartingWithThePrefixOnly() {
        AclRules rules = AclRules.of(List.of(
                allow("User:alice", PatternType.PREFIXED, "orders", AclOperation.WRITE),
                allow("User:alice", PatternType.PREFIXED, "o", AclOperation.READ)));

        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "orders.eu")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "order")).isFalse();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "my-orders")).isFalse();
        assertThat(rules.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "order")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "payments")).isFalse();
    }

    @Test
    void wildcardPrincipalAndWildcardResourceMatchEveryone() {
        AclRules rules = AclRules.of(List.of(
                allow("User:*", PatternType.LITERAL, "public", AclOperation.READ),
                allow("User:bob", PatternType.LITERAL, "*", AclOperation.WRITE)));

        assertThat(rules.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "public")).isTrue();
        assertThat(rules.allows(KafkaPrincipal.ANONYMOUS, AclOperation.READ, ResourceType.TOPIC, "public")).isTrue();
        assertThat(rules.allows(BOB, AclOperation.WRITE, ResourceType.TOPIC, "anything")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "anything")).isFalse();
        assertThat(rules.allows(BOB, AclOperation.WRITE, ResourceType.TOPIC, "*"))
                .as("a literal '*' rule matches the name '*' as well").isTrue();
    }

    @Test
    void readWriteDeleteAndAlterImplyDescribeAndAlterConfigsImpliesDescribeConfigs() {
        for (AclOperation implying : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE,
                AclOperation.ALTER)) {
            AclRules rules = AclRules.of(List.of(allow("User:alice", PatternType.LITERAL, "t", implying)));
            assertThat(rules.allows(ALICE, AclOperation.DESCRIBE, ResourceType.TOPIC, "t")).as(implying.name())
                    .isTrue();
            assertThat(rules.allows(ALICE, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, "t")).as(implying.name())
                    .isFalse();
        }
        AclRules configs = AclRules.of(List.of(allow("User:alice", PatternType.LITERAL, "t",
                AclOperation.ALTER_CONFIGS)));
        assertThat(configs.allows(ALICE, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, "t")).isTrue();
        assertThat(configs.allows(ALICE, AclOperation.DESCRIBE, ResourceType.TOPIC, "t")).isFalse();

        AclRules describeOnly = AclRules.of(List.of(allow("User:alice", PatternType.LITERAL, "t",
                AclOperation.DESCRIBE)));
        assertThat(describeOnly.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "t"))
                .as("implication goes one way").isFalse();
    }

    @Test
    void aDenyOfAnImplyingOperationDoesNotDenyDescribe() {
        AclRules rules = AclRules.of(List.of(
                allow("User:alice", PatternType.LITERAL, "t", AclOperation.DESCRIBE),
                deny("User:alice", PatternType.LITERAL, "t", AclOperation.WRITE)));

        assertThat(rules.allows(ALICE, AclOperation.DESCRIBE, ResourceType.TOPIC, "t")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "t")).isFalse();
    }

    @Test
    void allowsAnyFindsAnAllowOnSomeResourceUnlessDeniedEverywhere() {
        AclRules some = AclRules.of(List.of(allow("User:alice", PatternType.PREFIXED, "orders", AclOperation.WRITE)));
        AclRules deniedEverywhere = AclRules.of(List.of(
                allow("User:alice", PatternType.PREFIXED, "orders", AclOperation.WRITE),
                deny("User:*", PatternType.LITERAL, "*", AclOperation.WRITE)));

        assertThat(some.allowsAny(ALICE, AclOperation.WRITE, ResourceType.TOPIC)).isTrue();
        assertThat(some.allowsAny(BOB, AclOperation.WRITE, ResourceType.TOPIC)).isFalse();
        assertThat(some.allowsAny(ALICE, AclOperation.READ, ResourceType.TOPIC)).isFalse();
        assertThat(deniedEverywhere.allowsAny(ALICE, AclOperation.WRITE, ResourceType.TOPIC)).isFalse();
    }

    /** Kafka's authorizeByResourceType: an ALLOW counts only if no DENY prefix covers every name it names. */
    @Test
    void allowsAnyIgnoresAnAllowEveryNameOfWhichADenyPrefixCovers() {
        assertThat(anyWrite(allow("User:alice", PatternType.PREFIXED, "orders", AclOperation.WRITE),
                deny("User:*", PatternType.PREFIXED, "orders", AclOperation.ALL))).as("same prefix denied").isFalse();
        assertThat(anyWrite(allow("User:alice", PatternType.PREFIXED, "orders.eu", AclOperation.WRITE),
                deny("User:alice", PatternType.PREFIXED, "orders", AclOperation.WRITE))).as("shorter prefix denied")
                .isFalse();
        assertThat(anyWrite(allow("User:alice", PatternType.LITERAL, "orders", AclOperation.WRITE),
                deny("User:alice", PatternType.PREFIXED, "ord", AclOperation.WRITE))).as("literal under a denied prefix")
                .isFalse();
        assertThat(anyWrite(allow("User:alice", PatternType.LITERAL, "orders", AclOperation.WRITE),
                deny("User:alice", PatternType.LITERAL, "orders", AclOperation.WRITE))).as("same literal denied")
                .isFalse();
        assertThat(anyWrite(allow("User:alice", PatternType.PREFIXED, "orders", AclOperation.WRITE),
                deny("User:alice", PatternType.LITERAL, "orders", AclOperation.WRITE)))
                .as("a prefix names more topics than the one literal denied").isTrue();
        assertThat(anyWrite(allow("User:alice", PatternType.PREFIXED, "orders", AclOperation.WRITE),
                deny("User:alice", PatternType.PREFIXED, "orders.eu", AclOperation.WRITE)))
                .as("a longer denied prefix leaves names").isTrue();
        assertThat(anyWrite(allow("User:alice", PatternType.LITERAL, "*", AclOperation.WRITE),
                deny("User:alice", PatternType.PREFIXED, "o", AclOperation.WRITE))).as("the wildcard allowed").isTrue();
    }

    private static boolean anyWrite(AclBinding... bindings) {
        return AclRules.of(List.of(bindings)).allowsAny(ALICE, AclOperation.WRITE, ResourceType.TOPIC);
    }

    @Test
    void manyRulesForOnePatternAndPrincipalAreAllHonoured() {
        AclRules rules = AclRules.of(List.of(
                allow("User:alice", PatternType.LITERAL, "t", AclOperation.READ),
                allow("User:alice", PatternType.LITERAL, "t", AclOperation.WRITE),
                rule("User:alice", ResourceType.GROUP, PatternType.LITERAL, "t", AclOperation.DELETE,
                        AclPermissionType.ALLOW)));

        assertThat(rules.allows(ALICE, AclOperation.READ, ResourceType.TOPIC, "t")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.WRITE, ResourceType.TOPIC, "t")).isTrue();
        assertThat(rules.allows(ALICE, AclOperation.DELETE, ResourceType.TOPIC, "t")).isFalse();
        assertThat(rules.allows(ALICE, AclOperation.DELETE, ResourceType.GROUP, "t")).isTrue();
        assertThat(rules.size()).isEqualTo(3);
    }
}
