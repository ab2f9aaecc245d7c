package io.leasehold.proxy.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.leasehold.proxy.authorization.Authorizer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

class TopicCreationCheckTest {
    private static final KafkaPrincipal CAROL = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "carol");
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-05T23:00:00Z"), ZoneOffset.UTC);

    private final List<AuditEvent> recorded = new ArrayList<>();
    private final AuditLog log = new AuditLog() {
        @Override
        public boolean enabled() {
            return true;
        }

        @Override
        public void record(AuditEvent event) {
            recorded.add(event);
        }
    };

    /** CREATE on topics named {@code own-*}, and CREATE on the cluster when {@code cluster}. */
    private static Authorizer grants(boolean cluster) {
        return new Authorizer() {
            @Override
            public boolean enabled() {
                return true;
            }

            @Override
            public boolean allows(KafkaPrincipal principal, AclOperation operation, ResourceType type, String name) {
                return allowsQuietly(principal, operation, type, name);
            }

            @Override
            public boolean allowsQuietly(KafkaPrincipal principal, AclOperation operation, ResourceType type,
                                         String name) {
                return type == ResourceType.TOPIC ? name.startsWith("own-") : cluster;
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

    private TopicCreationCheck check(boolean cluster) {
        return new TopicCreationCheck(new AuditingAuthorizer(grants(cluster), log, null, CLOCK,
                ApiKeys.CREATE_TOPICS, "/10.0.0.9:41000", "carol-admin"), CAROL);
    }

    @Test
    void aTopicItsOwnRulesAllowIsWrittenAsCreateOnTheTopicEvenWhenTheClusterAllowsToo() {
        assertThat(check(true).allows("own-orders")).isTrue();

        assertThat(recorded).extracting(AuditEvent::operation, AuditEvent::resourceType, AuditEvent::resourceName,
                AuditEvent::decision).containsExactly(tuple("CREATE", "TOPIC", "own-orders",
                AuditEvent.Decision.ALLOW));
    }

    @Test
    void topicsOnlyTheClusterGrantAllowsAreWrittenAsOneCreateOnTheClusterPerRequest() {
        TopicCreationCheck creation = check(true);

        assertThat(creation.allows("shared-a")).isTrue();
        assertThat(creation.allows("shared-b")).isTrue();

        assertThat(recorded).extracting(AuditEvent::api, AuditEvent::operation, AuditEvent::resourceType,
                AuditEvent::resourceName, AuditEvent::decision).containsExactly(tuple("CreateTopics", "CREATE",
                "CLUSTER", "kafka-cluster", AuditEvent.Decision.ALLOW));
    }

    @Test
    void aTopicNeitherGrantAllowsIsRefusedAndWrittenAsTheTopicsDenial() {
        assertThat(check(false).allows("shared-a")).isFalse();

        assertThat(recorded).extracting(AuditEvent::resourceType, AuditEvent::resourceName, AuditEvent::decision)
                .containsExactly(tuple("TOPIC", "shared-a", AuditEvent.Decision.DENY));
    }
}
