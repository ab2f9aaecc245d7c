package io.leasehold.proxy.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.authorization.Authorizer;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class AuditingAuthorizerTest {
    private static final KafkaPrincipal BOB = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob");
    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-04T17:00:00Z"), ZoneOffset.UTC);

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
    private final AtomicLong nanos = new AtomicLong();

    /** Allows everything on topics named {@code ok-*}, nothing else. */
    private static final Authorizer OK_TOPICS = new Authorizer() {
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
            return type == ResourceType.TOPIC && name.startsWith("ok-");
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

    private Authorizer forRequest(ApiKeys api, AllowedAccessSampler sampler) {
        return new AuditingAuthorizer(OK_TOPICS, log, sampler, CLOCK, api, "/10.0.0.7:40000", "cli-7");
    }

    @Test
    void aDenialIsWrittenWithTheRequestAndClient() {
        assertThat(forRequest(ApiKeys.DELETE_TOPICS, null)
                .allows(BOB, AclOperation.DELETE, ResourceType.TOPIC, "orders")).isFalse();

        assertThat(recorded).containsExactly(new AuditEvent(CLOCK.instant(), "User:bob", "/10.0.0.7:40000", "cli-7",
                "DeleteTopics", "DELETE", "TOPIC", "orders", AuditEvent.Decision.DENY));
    }

    @Test
    void anAllowedMutationIsWrittenAndAnAllowedReadIsNotWithoutAllowedReads() {
        forRequest(ApiKeys.CREATE_TOPICS, null).allows(BOB, AclOperation.CREATE, ResourceType.TOPIC, "ok-new");
        forRequest(ApiKeys.FETCH, null).allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-old");

        assertThat(recorded).extracting(AuditEvent::api, AuditEvent::resourceName, AuditEvent::decision)
                .containsExactly(Tuple.tuple("CreateTopics", "ok-new",
                        AuditEvent.Decision.ALLOW));
    }

    @ParameterizedTest
    @EnumSource(value = ApiKeys.class, names = {"OFFSET_COMMIT", "TXN_OFFSET_COMMIT"})
    void anAllowedOffsetCommitIsWrittenAsAMutationWithoutSampling(ApiKeys commit) {
        Authorizer authorizer = forRequest(commit, null);

        authorizer.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-orders");
        authorizer.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-orders");

        assertThat(recorded).extracting(AuditEvent::api, AuditEvent::operation, AuditEvent::resourceName,
                AuditEvent::decision).containsExactly(
                        Tuple.tuple(commit.name, "READ", "ok-orders", AuditEvent.Decision.ALLOW),
                        Tuple.tuple(commit.name, "READ", "ok-orders", AuditEvent.Decision.ALLOW));
    }

    @Test
    void quietChecksAreNeverWritten() {
        forRequest(ApiKeys.METADATA, null).allowsQuietly(BOB, AclOperation.DESCRIBE, ResourceType.TOPIC, "secret");

        assertThat(recorded).isEmpty();
    }

    @Test
    void allowedReadsAreWrittenOncePerIntervalPerPrincipalAndResource() {
        AllowedAccessSampler sampler = new AllowedAccessSampler(TimeUnit.MINUTES.toNanos(1), 100, nanos::get);
        Authorizer fetch = forRequest(ApiKeys.FETCH, sampler);

        fetch.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-a");
        fetch.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-a");
        fetch.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-b");
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(59));
        fetch.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-a");
        nanos.addAndGet(TimeUnit.SECONDS.toNanos(1));
        fetch.allows(BOB, AclOperation.READ, ResourceType.TOPIC, "ok-a");

        assertThat(recorded).extracting(AuditEvent::resourceName).containsExactly("ok-a", "ok-b", "ok-a");
    }

    @Test
    void theSamplerForgetsTheLeastRecentPairsBeyondItsCapacity() {
        AllowedAccessSampler sampler = new AllowedAccessSampler(TimeUnit.MINUTES.toNanos(1), 2, nanos::get);

        assertThat(sampler.due("User:bob", "TOPIC:a")).isTrue();
        assertThat(sampler.due("User:bob", "TOPIC:b")).isTrue();
        assertThat(sampler.due("User:bob", "TOPIC:c")).isTrue();

        assertThat(sampler.due("User:bob", "TOPIC:c")).as("remembered").isFalse();
        assertThat(sampler.due("User:bob", "TOPIC:a")).as("forgotten, so due again").isTrue();
    }
}
