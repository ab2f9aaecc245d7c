package io.leasehold.proxy.quotas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.testing.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.apache.kafka.common.quota.ClientQuotaFilterComponent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client quota APIs of a real proxy process with a quotas file, as a real kafka-clients
 * admin meets them: {@code describeClientQuotas} lists the file's entries (all of them, or those
 * a filter picks, defaults by a null name as Kafka shows them), and {@code alterClientQuotas} is
 * refused with a message naming the file; a user the ACLs do not let describe the cluster's
 * configs is refused as Kafka refuses it, and the refusal is in the audit log.
 */
class ClientQuotaApisEndToEndTest {
    private static final String QUOTAS = """
            quotas:
              - {user: slow, producerByteRate: 262144}
              - {user: etl, clientId: loader, consumerByteRate: 10485760}
              - {user: "<default>", requestPercentage: 200}
            """;

    private LocalCluster cluster;
    private ConfiguredProxy proxy;

    @AfterEach
    void stop() throws Exception {
        ConfiguredProxy.stopAll(cluster, proxy);
    }

    @Test
    void describeListsTheFilesEntriesAndAlterIsRefusedNamingTheFile(@TempDir Path dir) throws Exception {
        Path quotas = Files.writeString(dir.resolve("quotas.yaml"), QUOTAS);
        cluster = LocalCluster.builder("quota-apis").brokers(1).start();
        proxy = ConfiguredProxy.builder(cluster, dir, "quota-apis-proxy")
                .section("quotas: { file: %s }".formatted(quotas)).start();

        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address()))) {
            Map<ClientQuotaEntity, Map<String, Double>> all = admin.describeClientQuotas(ClientQuotaFilter.all())
                    .entities().get(30, TimeUnit.SECONDS);
            Map<ClientQuotaEntity, Map<String, Double>> slow = admin.describeClientQuotas(ClientQuotaFilter.contains(
                    List.of(ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, "slow"))))
                    .entities().get(30, TimeUnit.SECONDS);
            Map<ClientQuotaEntity, Map<String, Double>> usersOnly = admin.describeClientQuotas(
                    ClientQuotaFilter.containsOnly(List.of(ClientQuotaFilterComponent.ofEntityType(
                            ClientQuotaEntity.USER)))).entities().get(30, TimeUnit.SECONDS);

            assertThat(all).containsOnly(
                    Map.entry(entity("slow", null), Map.of("producer_byte_rate", 262144.0)),
                    Map.entry(entity("etl", "loader"), Map.of("consumer_byte_rate", 10485760.0)),
                    Map.entry(entity(null, null), Map.of("request_percentage", 200.0)));
            assertThat(slow).containsOnlyKeys(entity("slow", null));
            assertThat(usersOnly).as("strict: entries naming a user and nothing else")
                    .containsOnlyKeys(entity("slow", null), entity(null, null));
            assertThatThrownBy(() -> admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity("slow", null),
                    List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1.0))))).all().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(InvalidRequestException.class)
                    .cause().hasMessageContaining(quotas.toString());
        }
    }

    @Test
    void aUserWithoutDescribeConfigsOnTheClusterIsRefusedAndTheRefusalIsAudited(@TempDir Path dir) throws Exception {
        Path quotas = Files.writeString(dir.resolve("quotas.yaml"), QUOTAS);
        Path users = Files.writeString(dir.resolve("users.yaml"), """
                users:
                  - {name: bob, password: "bob-pw"}
                """);
        Path acls = Files.writeString(dir.resolve("acls.yaml"), """
                acls:
                  - {principal: "User:bob", resourceType: TOPIC, patternType: PREFIXED, name: mine-,
                     operations: [DESCRIBE], permission: ALLOW}
                """);
        Path audit = dir.resolve("audit.jsonl");
        cluster = LocalCluster.builder("quota-apis-acl").brokers(1).start();
        proxy = ConfiguredProxy.builder(cluster, dir, "quota-apis-acl-proxy")
                .listener("sasl: { mechanisms: [SCRAM-SHA-512], usersFile: %s }".formatted(users))
                .section("authorization: { aclsFile: %s }".formatted(acls))
                .section("audit: { file: %s }".formatted(audit))
                .section("quotas: { file: %s }".formatted(quotas)).start();

        try (Admin bob = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address(),
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
                SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512",
                SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"bob\" password=\"bob-pw\";"))) {
            assertThatThrownBy(() -> bob.describeClientQuotas(ClientQuotaFilter.all()).entities()
                    .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(Files.readAllLines(audit))
                .anySatisfy(line -> assertThat(line).contains("\"api\":\"DescribeClientQuotas\"")
                        .contains("\"principal\":\"User:bob\"").contains("\"operation\":\"DESCRIBE_CONFIGS\"")
                        .contains("\"resourceType\":\"CLUSTER\"").contains("\"decision\":\"DENY\"")));
    }

    /** A user entity ({@code null}: Kafka's default user) with a client id if {@code clientId} is set. */
    private static ClientQuotaEntity entity(String user, String clientId) {
        Map<String, String> parts = new HashMap<>();
        parts.put(ClientQuotaEntity.USER, user);
        if (clientId != null) {
            parts.put(ClientQuotaEntity.CLIENT_ID, clientId);
        }
        return new ClientQuotaEntity(parts);
    }
}
