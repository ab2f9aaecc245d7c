package io.leasehold.proxy.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.testing.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit log of a real proxy process (SCRAM users, an ACL file) in front of a reference
 * broker, as real kafka-clients admin clients meet it: {@code alice} may create and delete
 * {@code mine-*} topics, {@code bob} may only describe them, {@code carol} may create topics
 * through CREATE on the cluster.
 */
class AuditLogEndToEndTest {
    private static final String ACLS = """
            acls:
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: mine-,
                 operations: [CREATE, DELETE, DESCRIBE], permission: ALLOW}
              - {principal: "User:bob", resourceType: TOPIC, patternType: PREFIXED, name: mine-,
                 operations: [DESCRIBE], permission: ALLOW}
              - {principal: "User:carol", resourceType: CLUSTER, operations: [CREATE], permission: ALLOW}
            """;

    private LocalCluster cluster;
    private ConfiguredProxy proxy;

    @AfterEach
    void stop() throws Exception {
        ConfiguredProxy.stopAll(cluster, proxy);
    }

    private Map<String, Object> as(String user, String password) {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address(),
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
                SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512",
                SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"" + user + "\" password=\"" + password + "\";",
                CommonClientConfigs.CLIENT_ID_CONFIG, user + "-admin");
    }

    @Test
    void auditFileHoldsTheCreatedTopicsTheRefusedDeleteAndTheFailedLogin(@TempDir Path dir) throws Exception {
        Path users = Files.writeString(dir.resolve("users.yaml"), """
                users:
                  - {name: alice, password: "alice-pw"}
                  - {name: bob, password: "bob-pw"}
                  - {name: carol, password: "carol-pw"}
                """);
        Path acls = Files.writeString(dir.resolve("acls.yaml"), ACLS);
        Path audit = dir.resolve("audit.jsonl");
        cluster = LocalCluster.builder("audit").brokers(1).leaseTtl(Duration.ofSeconds(5)).start();
        proxy = ConfiguredProxy.builder(cluster, dir, "audit-proxy")
                .listener("sasl: { mechanisms: [SCRAM-SHA-512], usersFile: %s }".formatted(users))
                .section("authorization: { aclsFile: %s }".formatted(acls))
                .section("audit: { file: %s }".formatted(audit)).start();

        try (Admin alice = Admin.create(as("alice", "alice-pw"))) {
            alice.createTopics(List.of(new NewTopic("mine-orders", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (Admin carol = Admin.create(as("carol", "carol-pw"))) {
            carol.createTopics(List.of(new NewTopic("shared-events", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
        try (Admin bob = Admin.create(as("bob", "bob-pw"))) {
            assertThatThrownBy(() -> bob.deleteTopics(Set.of("mine-orders")).all().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        try (Admin mallory = Admin.create(as("bob", "wrong-pw"))) {
            assertThatThrownBy(() -> mallory.listTopics().names().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(SaslAuthenticationException.class);
        }

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            List<JsonNode> lines = lines(audit);
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("api").asText()).isEqualTo("CreateTopics");
                assertThat(line.get("principal").asText()).isEqualTo("User:alice");
                assertThat(line.get("clientId").asText()).isEqualTo("alice-admin");
                assertThat(line.get("clientAddress").asText()).contains("127.0.0.1");
                assertThat(line.get("operation").asText()).isEqualTo("CREATE");
                assertThat(line.get("resourceType").asText()).isEqualTo("TOPIC");
                assertThat(line.get("resourceName").asText()).isEqualTo("mine-orders");
                assertThat(line.get("decision").asText()).isEqualTo("ALLOW");
                assertThat(OffsetDateTime.parse(line.get("time").asText())).isNotNull();
            });
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("api").asText()).isEqualTo("CreateTopics");
                assertThat(line.get("principal").asText()).isEqualTo("User:carol");
                assertThat(line.get("operation").asText()).isEqualTo("CREATE");
                assertThat(line.get("resourceType").asText()).isEqualTo("CLUSTER");
                assertThat(line.get("resourceName").asText()).isEqualTo("kafka-cluster");
                assertThat(line.get("decision").asText()).isEqualTo("ALLOW");
            });
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("api").asText()).isEqualTo("DeleteTopics");
                assertThat(line.get("principal").asText()).isEqualTo("User:bob");
                assertThat(line.get("clientId").asText()).isEqualTo("bob-admin");
                assertThat(line.get("operation").asText()).isEqualTo("DELETE");
                assertThat(line.get("resourceType").asText()).isEqualTo("TOPIC");
                assertThat(line.get("resourceName").asText()).isEqualTo("mine-orders");
                assertThat(line.get("decision").asText()).isEqualTo("DENY");
            });
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("api").asText()).isEqualTo("SaslAuthenticate");
                assertThat(line.get("principal").asText()).isEqualTo("User:ANONYMOUS");
                assertThat(line.get("decision").asText()).isEqualTo("DENY");
            });
            assertThat(lines).anySatisfy(line -> {
                assertThat(line.get("api").asText()).isEqualTo("SaslAuthenticate");
                assertThat(line.get("principal").asText()).isEqualTo("User:alice");
                assertThat(line.get("decision").asText()).isEqualTo("ALLOW");
            });
        });
    }

    private static List<JsonNode> lines(Path audit) throws Exception {
        List<JsonNode> lines = new ArrayList<>();
        if (Files.exists(audit)) {
            ObjectMapper json = new ObjectMapper();
            for (String line : Files.readAllLines(audit)) {
                lines.add(json.readTree(line));
            }
        }
        return lines;
    }
}
