package io.leasehold.proxy.authorization;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.SaslKafkaBroker;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.OwnerValue;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The topic rules of KIP-848 consumer groups, with Apache Kafka as the oracle: one real Kafka 4.4
 * broker that authorizes by its ACLs, and a proxy in front of it (logging in as a super user) with
 * the same ACLs for the same user. {@code alice} may read and describe {@code visible-*} topics and
 * use {@code g-*} groups; {@code hidden-*} topics she may not even describe. A kafka-clients
 * consumer ({@code group.protocol=consumer}) and admin client as {@code alice} get the same answers
 * straight from the broker and through the proxy, except for a regex subscription, which Kafka
 * resolves as alice and the proxy refuses (the difference {@code docs/protocol-support.md} states).
 */
class ConsumerGroupTopicAclsAgainstKafkaTest {
    private static final String SERVICE_USER = "leasehold-svc";
    private static final String SERVICE_PASSWORD = "svc-" + UUID.randomUUID();
    private static final String ALICE_PASSWORD = "alice-" + UUID.randomUUID();
    private static final String PROXY_ACLS = """
            acls:
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: visible-,
                 operations: [READ, DESCRIBE], permission: ALLOW}
              - {principal: "User:alice", resourceType: GROUP, patternType: PREFIXED, name: g-,
                 operations: [READ, DESCRIBE], permission: ALLOW}
            """;

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static SaslKafkaBroker kafka;
    private static ConfiguredProxy proxy;
    private static String visible;
    private static String hidden;

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.builder("group-topic-acls").brokers(0).start();
        kafka = SaslKafkaBroker.startAuthorizing(SERVICE_USER, SERVICE_PASSWORD, Duration.ofMinutes(10),
                cluster.logDir());
        put(new KeySchema(cluster.prefix()).brokerKey(SaslKafkaBroker.ID),
                BrokerRegistration.toJson(new BrokerAddress(SaslKafkaBroker.ID, "127.0.0.1", kafka.saslPort(), null)));
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.internalAddress()))) {
            admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("alice",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), ALICE_PASSWORD)))
                    .all().get(30, TimeUnit.SECONDS);
            admin.createAcls(List.of(
                    allowAlice(ResourceType.TOPIC, "visible-", AclOperation.READ),
                    allowAlice(ResourceType.TOPIC, "visible-", AclOperation.DESCRIBE),
                    allowAlice(ResourceType.GROUP, "g-", AclOperation.READ),
                    allowAlice(ResourceType.GROUP, "g-", AclOperation.DESCRIBE))).all().get(30, TimeUnit.SECONDS);
        }
        visible = ownedTopic("visible-");
        hidden = ownedTopic("hidden-");
        Path users = Files.writeString(dir.resolve("users.yaml"),
                "users:\n  - {name: alice, password: \"" + ALICE_PASSWORD + "\"}\n");
        Path acls = Files.writeString(dir.resolve("acls.yaml"), PROXY_ACLS);
        Path password = Files.writeString(dir.resolve("svc.password"), SERVICE_PASSWORD + "\n");
        proxy = ConfiguredProxy.builder(cluster, dir, "group-topic-acls")
                .listener("sasl: { mechanisms: [SCRAM-SHA-512], usersFile: %s }".formatted(users))
                .section("authorization: { aclsFile: %s }".formatted(acls))
                .backends("{ bootstrap: [\"" + kafka.saslAddress() + "\"], sasl: { mechanism: SCRAM-SHA-512,"
                        + " username: " + SERVICE_USER + ", passwordFile: " + password + " } }")
                .start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (proxy != null) {
            proxy.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aConsumerSubscribingToATopicItMayNotDescribeIsRefusedAndNeverJoinsAsFromKafka() throws Exception {
        Refusal fromKafka = refusedSubscription(alice(kafka.saslAddress()), group("g-direct-"));
        Refusal fromProxy = refusedSubscription(alice(proxy.address()), group("g-proxied-"));

        // Named when the metadata answer refuses it first, unnamed when the heartbeat's error reaches poll() first.
        assertThat(fromKafka.refused().unauthorizedTopics()).isSubsetOf(hidden);
        assertThat(fromProxy.refused().unauthorizedTopics()).isSubsetOf(hidden);
        assertThat(fromKafka.membersAssigned()).as("Kafka let no member join").isEmpty();
        assertThat(fromProxy.membersAssigned()).as("nor did the proxy's broker, though the proxy is a super user")
                .isEmpty();
    }

    @Test
    void describingAGroupThatAssignsAHiddenTopicIsRefusedAsByKafka() throws Exception {
        String shared = group("g-shared-");
        Map<String, Object> service = new HashMap<>(sasl(kafka.saslAddress(), SERVICE_USER, SERVICE_PASSWORD));
        try (KafkaConsumer<String, String> member = consumer(service, shared)) {
            member.subscribe(List.of(visible, hidden));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (member.assignment().size() < 2 && System.nanoTime() < deadline) {
                member.poll(Duration.ofMillis(200));
            }
            assertThat(member.assignment()).as("the service user's member owns both topics").hasSize(2);

            Throwable fromKafka = describedAsAlice(kafka.saslAddress(), shared);
            Throwable fromProxy = describedAsAlice(proxy.address(), shared);

            assertThat(fromKafka).isInstanceOf(TopicAuthorizationException.class);
            assertThat(fromProxy).isInstanceOf(fromKafka.getClass());
            assertThat(String.valueOf(fromProxy.getMessage())).doesNotContain(hidden);
        }
    }

    @Test
    void aRegexSubscriptionKafkaResolvesAsTheMemberIsRefusedThroughTheProxyWhichCannotNarrowIt() throws Exception {
        SubscriptionPattern both = new SubscriptionPattern("(visible|hidden)-.*");
        try (KafkaConsumer<String, String> direct = consumer(alice(kafka.saslAddress()), group("g-regex-direct-"))) {
            direct.subscribe(both);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (direct.assignment().isEmpty() && System.nanoTime() < deadline) {
                direct.poll(Duration.ofMillis(200));
            }
            assertThat(direct.assignment()).as("Kafka resolves the regex as alice")
                    .extracting(TopicPartition::topic).containsOnly(visible);
        }
        try (KafkaConsumer<String, String> proxied = consumer(alice(proxy.address()), group("g-regex-proxied-"))) {
            proxied.subscribe(both);
            TopicAuthorizationException refused = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (refused == null && System.nanoTime() < deadline) {
                try {
                    proxied.poll(Duration.ofMillis(200));
                } catch (TopicAuthorizationException e) {
                    refused = e;
                }
            }
            // kafka-clients logs the proxy's explanation but raises Kafka's generic message.
            assertThat(refused).as("the deliberate difference of docs/protocol-support.md").isNotNull();
            assertThat(proxied.assignment()).isEmpty();
        }
    }

    /** How a subscription was refused, and who the group had assigned partitions to meanwhile. */
    private record Refusal(TopicAuthorizationException refused, List<String> membersAssigned) {
    }

    /**
     * Polls as a KIP-848 consumer subscribed to both topics until the subscription is refused, then
     * a little longer (the consumer keeps heartbeating in the background), and looks at the group
     * while the consumer is still in it.
     */
    private static Refusal refusedSubscription(Map<String, Object> connection, String group) throws Exception {
        try (KafkaConsumer<String, String> consumer = consumer(connection, group)) {
            consumer.subscribe(List.of(visible, hidden));
            TopicAuthorizationException refused = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (refused == null && System.nanoTime() < deadline) {
                try {
                    consumer.poll(Duration.ofMillis(200));
                } catch (TopicAuthorizationException e) {
                    refused = e;
                }
            }
            assertThat(refused).as("the subscription to %s refused", hidden).isNotNull();
            // Several heartbeat round trips: a member the coordinator accepts is assigned by then.
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (System.nanoTime() < settle) {
                try {
                    consumer.poll(Duration.ofMillis(200));
                } catch (TopicAuthorizationException again) {
                    // Raised on every poll while the subscription stands.
                }
            }
            return new Refusal(refused, membersAssigned(group));
        }
    }

    /** The members of {@code group} with an assignment, as the broker's own admin client sees them. */
    private static List<String> membersAssigned(String group) throws Exception {
        try (Admin admin = Admin.create(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.internalAddress()))) {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all()
                    .get(30, TimeUnit.SECONDS).get(group);
            return description.members().stream()
                    .filter(m -> !m.assignment().topicPartitions().isEmpty())
                    .map(m -> m.consumerId() + " " + m.assignment().topicPartitions()).toList();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return List.of();
            }
            throw e;
        }
    }

    /** What describing {@code group} as alice at {@code address} fails with, or null if it succeeds. */
    private static Throwable describedAsAlice(String address, String group) throws Exception {
        try (Admin admin = Admin.create(alice(address))) {
            admin.describeConsumerGroups(List.of(group)).all().get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static KafkaConsumer<String, String> consumer(Map<String, Object> connection, String group) {
        Map<String, Object> settings = new HashMap<>(connection);
        settings.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        settings.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(settings, new StringDeserializer(), new StringDeserializer());
    }

    private static Map<String, Object> alice(String address) {
        return sasl(address, "alice", ALICE_PASSWORD);
    }

    private static Map<String, Object> sasl(String address, String user, String password) {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, address,
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
                SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512",
                SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"" + user + "\" password=\"" + password + "\";");
    }

    private static AclBinding allowAlice(ResourceType type, String prefix, AclOperation operation) {
        return new AclBinding(new ResourcePattern(type, prefix, PatternType.PREFIXED),
                new AccessControlEntry("User:alice", "*", operation, AclPermissionType.ALLOW));
    }

    /** Creates {@code prefix-UUID} with one partition and names the broker its owner in etcd. */
    private static String ownedTopic(String prefix) throws Exception {
        String topic = prefix + UUID.randomUUID();
        StringClients.createTopic(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.internalAddress()),
                topic, 1);
        put(new KeySchema(cluster.prefix()).partitionLeaseKey(topic, 0), OwnerValue.encode(SaslKafkaBroker.ID));
        return topic;
    }

    /** A fresh group id the broker owns as far as etcd says. */
    private static String group(String prefix) throws Exception {
        String group = prefix + UUID.randomUUID();
        put(new KeySchema(cluster.prefix()).groupLeaseKey(group), OwnerValue.encode(SaslKafkaBroker.ID));
        return group;
    }

    private static void put(String key, String value) throws Exception {
        try (Client etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build()) {
            etcd.getKVClient().put(ByteSequence.from(key, StandardCharsets.UTF_8),
                    ByteSequence.from(value, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
        }
    }
}
