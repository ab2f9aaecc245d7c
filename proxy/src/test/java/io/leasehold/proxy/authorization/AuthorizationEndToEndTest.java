package io.leasehold.proxy.authorization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.KafkajsRun;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.testing.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.AlterConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DeleteTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * ACLs at the proxy end to end: a real etcd and reference broker behind two proxy processes
 * that share one users file (SCRAM-SHA-512) and one ACL file. {@code alice} may write and read
 * {@code open-*} topics and only describe {@code closed-*} ones; {@code bob} may only describe
 * {@code open-*}; {@code admin} may do everything; {@code secret-*} topics are the admin's alone.
 * {@code alice} may also create, delete and configure {@code mine-*} topics, so her admin requests
 * that name those and others are carried out for hers and refused for the others.
 * kafka-clients, kcat and kafkajs each meet the refusals the way they meet a Kafka broker's.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AuthorizationEndToEndTest {
    private static final String DENIALS = "leasehold_authorization_denials_total";
    private static final Map<String, String> PASSWORDS = Map.of("alice", "alice-pw-1", "bob", "bob-pw-2",
            "admin", "admin-pw-3", "carol", "carol-pw-4");
    private static final String ACLS = """
            acls:
              - {principal: "User:admin", resourceType: CLUSTER, operations: [ALL], permission: ALLOW}
              - {principal: "User:admin", resourceType: TOPIC, name: "*", operations: [ALL], permission: ALLOW}
              - {principal: "User:admin", resourceType: GROUP, name: "*", operations: [ALL], permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: open-,
                 operations: [WRITE, READ], permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: closed-,
                 operations: [DESCRIBE], permission: ALLOW}
              - {principal: "User:alice", resourceType: TOPIC, patternType: PREFIXED, name: mine-,
                 operations: [CREATE, DELETE, ALTER_CONFIGS], permission: ALLOW}
              - {principal: "User:bob", resourceType: TOPIC, patternType: PREFIXED, name: open-,
                 operations: [DESCRIBE], permission: ALLOW}
              - {principal: "User:*", resourceType: GROUP, patternType: PREFIXED, name: readers-,
                 operations: [READ], permission: ALLOW}
            """;
    private static final int RECORDS = 20;

    private Path dir;
    private Path aclsFile;
    private LocalCluster cluster;
    private ConfiguredProxy first;
    private ConfiguredProxy second;

    @BeforeAll
    void startClusterAndProxies(@TempDir Path tempDir) throws Exception {
        dir = tempDir;
        StringBuilder users = new StringBuilder("users:\n");
        PASSWORDS.forEach((name, password) -> users.append("  - {name: ").append(name).append(", password: \"")
                .append(password).append("\"}\n"));
        Path usersFile = Files.writeString(dir.resolve("users.yaml"), users);
        aclsFile = Files.writeString(dir.resolve("acls.yaml"), ACLS);
        cluster = LocalCluster.builder("acls").brokers(1).leaseTtl(Duration.ofSeconds(5)).start();
        first = startProxy("acl-proxy-1", usersFile);
        second = startProxy("acl-proxy-2", usersFile);
    }

    @AfterAll
    void stopAll() throws IOException {
        ConfiguredProxy.stopAll(cluster, first, second);
    }

    private ConfiguredProxy startProxy(String name, Path users) {
        return ConfiguredProxy.builder(cluster, dir, name)
                .listener("sasl: { mechanisms: [SCRAM-SHA-512], usersFile: %s }".formatted(users))
                .section("authorization: { aclsFile: %s }".formatted(aclsFile)).start();
    }

    /** kafka-clients settings for {@code proxy} as {@code user} (SCRAM-SHA-512 over plaintext). */
    private static Map<String, Object> as(String user, ConfiguredProxy proxy) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
        settings.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
        settings.put(SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512");
        settings.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                + "username=\"" + user + "\" password=\"" + PASSWORDS.get(user) + "\";");
        return settings;
    }

    private String topic(String prefix) throws Exception {
        String topic = prefix + UUID.randomUUID();
        StringClients.createTopic(as("admin", first), topic, 3);
        return topic;
    }

    private long endOffsetSum(String topic) throws Exception {
        try (Admin admin = Admin.create(as("admin", second))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            IntStream.range(0, 3).forEach(p -> latest.put(new TopicPartition(topic, p), OffsetSpec.latest()));
            return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(info -> info.offset()).sum();
        }
    }

    @Test
    void javaProducerBatchingAnAllowedAndADeniedTopicGetsTopicAuthorizationExceptionOnTheDeniedRecordsOnly()
            throws Exception {
        String open = topic("open-");
        String closed = topic("closed-");
        double deniedBefore = first.metrics().value(DENIALS, "operation=\"WRITE\",resource_type=\"TOPIC\"");
        Map<String, Object> settings = new HashMap<>(as("alice", first));
        settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        // Both topics' records wait for one another, so each produce request carries both.
        settings.put(ProducerConfig.LINGER_MS_CONFIG, 500);
        List<Future<RecordMetadata>> allowed = new ArrayList<>();
        List<Future<RecordMetadata>> denied = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings)) {
            producer.partitionsFor(open);
            producer.partitionsFor(closed);
            for (int i = 0; i < RECORDS; i++) {
                allowed.add(producer.send(new ProducerRecord<>(open, "k" + i, "open-" + i)));
                denied.add(producer.send(new ProducerRecord<>(closed, "k" + i, "closed-" + i)));
            }
            producer.flush();
        }

        for (Future<RecordMetadata> ack : allowed) {
            assertThat(ack.get(30, TimeUnit.SECONDS).offset()).isGreaterThanOrEqualTo(0);
        }
        for (Future<RecordMetadata> refusal : denied) {
            assertThatThrownBy(() -> refusal.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        assertThat(endOffsetSum(open)).as("allowed records written").isEqualTo(RECORDS);
        assertThat(endOffsetSum(closed)).as("denied records never reached a broker").isZero();
        assertThat(first.metrics().value(DENIALS, "operation=\"WRITE\",resource_type=\"TOPIC\""))
                .isGreaterThan(Math.max(deniedBefore, 0));
        assertThat(Files.readString(first.process().stderrLog())).contains("Denied User:alice WRITE on TOPIC");
    }

    @Test
    void javaConsumerWithoutReadOnTheTopicGetsTopicAuthorizationExceptionFromPoll() throws Exception {
        String open = topic("open-");
        StringClients.produce(as("alice", first), open, "v", RECORDS);
        Map<String, Object> settings = new HashMap<>(as("bob", second));
        settings.put(ConsumerConfig.GROUP_ID_CONFIG, "readers-" + UUID.randomUUID());
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings)) {
            consumer.subscribe(List.of(open));
            assertThatThrownBy(() -> {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200));
                }
            }).isInstanceOf(TopicAuthorizationException.class)
                    .satisfies(e -> assertThat(((TopicAuthorizationException) e).unauthorizedTopics())
                            .containsExactly(open));
        }
        List<String> read = StringClients.consume(as("alice", second), open, "readers-" + UUID.randomUUID(), RECORDS);
        assertThat(read).as("alice, who may read, reads it all").hasSize(RECORDS);
    }

    @Test
    void javaConsumerInAGroupItMayNotReadGetsGroupAuthorizationException() throws Exception {
        String open = topic("open-");
        String group = "private-" + UUID.randomUUID();
        Map<String, Object> settings = new HashMap<>(as("alice", second));
        settings.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        settings.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        settings.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        double before = second.metrics().value(DENIALS, "operation=\"DESCRIBE\",resource_type=\"GROUP\"");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(settings)) {
            consumer.subscribe(List.of(open));
            assertThatThrownBy(() -> consumer.poll(Duration.ofSeconds(30)))
                    .isInstanceOf(GroupAuthorizationException.class)
                    .satisfies(e -> assertThat(((GroupAuthorizationException) e).groupId()).isEqualTo(group));
        }
        assertThat(second.metrics().value(DENIALS, "operation=\"DESCRIBE\",resource_type=\"GROUP\""))
                .isGreaterThan(Math.max(before, 0));
    }

    @Test
    void deleteTopicsIsRefusedUnlessAllowedAndAclChangesAreRefusedWithTheFileNamed() throws Exception {
        String open = topic("open-");
        try (Admin alice = Admin.create(as("alice", first)); Admin admin = Admin.create(as("admin", second))) {
            assertThatThrownBy(() -> alice.deleteTopics(List.of(open)).all().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).as("still there").contains(open);

            AclBinding grant = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "x", PatternType.LITERAL),
                    new AccessControlEntry("User:bob", "*", AclOperation.ALL, AclPermissionType.ALLOW));
            assertThatThrownBy(() -> admin.createAcls(List.of(grant)).all().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class)
                    .hasMessageContaining("authorization.aclsFile");
            AclBindingFilter closedTopics = new AclBindingFilter(new ResourcePatternFilter(ResourceType.TOPIC,
                    "closed-", PatternType.PREFIXED), AccessControlEntryFilter.ANY);
            assertThat(admin.describeAcls(closedTopics).values().get(30, TimeUnit.SECONDS))
                    .as("DescribeAcls answers from the file").containsExactly(new AclBinding(
                            new ResourcePattern(ResourceType.TOPIC, "closed-", PatternType.PREFIXED),
                            new AccessControlEntry("User:alice", "*", AclOperation.DESCRIBE,
                                    AclPermissionType.ALLOW)));
            assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                    .hasSizeGreaterThanOrEqualTo(8);
            assertThatThrownBy(() -> alice.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);

            admin.deleteTopics(List.of(open)).all().get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> !admin.listTopics().names().get(30, TimeUnit.SECONDS)
                    .contains(open));
        }
    }

    private Set<String> topicNames() throws Exception {
        try (Admin admin = Admin.create(as("admin", second))) {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void javaAdminCreateAndDeleteTopicsCarryOutTheAllowedTopicsAndFailOnlyTheOthersWithTopicAuthorizationException()
            throws Exception {
        String mine = "mine-" + UUID.randomUUID();
        String other = "other-" + UUID.randomUUID();
        String theirs = topic("other-");
        try (Admin alice = Admin.create(as("alice", first)); Admin admin = Admin.create(as("admin", second))) {
            CreateTopicsResult created = alice.createTopics(List.of(new NewTopic(mine, 1, (short) 1),
                    new NewTopic(other, 1, (short) 1)));
            created.values().get(mine).get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> created.values().get(other).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> topicNames().contains(mine));
            assertThat(topicNames()).doesNotContain(other);

            DeleteTopicsResult deleted = alice.deleteTopics(List.of(mine, theirs));
            deleted.topicNameValues().get(mine).get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> deleted.topicNameValues().get(theirs).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> !topicNames().contains(mine));
            assertThat(topicNames()).contains(theirs);

            // By topic id (DeleteTopics v6): the proxy looks the names up to decide.
            String mineToo = "mine-" + UUID.randomUUID();
            alice.createTopics(List.of(new NewTopic(mineToo, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            Map<String, Uuid> ids = await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> admin.describeTopics(List.of(mineToo, theirs)).allTopicNames()
                            .get(30, TimeUnit.SECONDS), d -> d.size() == 2).entrySet().stream()
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().topicId()));
            DeleteTopicsResult byId = alice.deleteTopics(TopicCollection.ofTopicIds(List.of(ids.get(mineToo),
                    ids.get(theirs))));
            byId.topicIdValues().get(ids.get(mineToo)).get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> byId.topicIdValues().get(ids.get(theirs)).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            await().atMost(Duration.ofSeconds(30)).until(() -> !topicNames().contains(mineToo));
            assertThat(topicNames()).contains(theirs);
        }
    }

    @Test
    void javaAdminDescribeConfigsAnswersTheAllowedTopicAndFailsTheOtherWithTopicAuthorizationException()
            throws Exception {
        String open = topic("open-");
        String mine = "mine-" + UUID.randomUUID();
        try (Admin alice = Admin.create(as("alice", second))) {
            alice.createTopics(List.of(new NewTopic(mine, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
            ConfigResource mineConfigs = new ConfigResource(ConfigResource.Type.TOPIC, mine);
            ConfigResource openConfigs = new ConfigResource(ConfigResource.Type.TOPIC, open);
            ConfigResource brokerDefaults = new ConfigResource(ConfigResource.Type.BROKER, "");
            Map<ConfigResource, KafkaFuture<Config>> described = alice.describeConfigs(List.of(mineConfigs,
                    openConfigs, brokerDefaults)).values();

            assertThat(described.get(mineConfigs).get(30, TimeUnit.SECONDS)).as("ALTER_CONFIGS implies DESCRIBE_CONFIGS")
                    .isNotNull();
            assertThatThrownBy(() -> described.get(openConfigs).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            assertThatThrownBy(() -> described.get(brokerDefaults).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(ClusterAuthorizationException.class);
        }
    }

    @Test
    void kafkajsAdminCreateAndDeleteTopicsCarryOutTheAllowedTopicAndReportTheRefusedOne() throws Exception {
        String mine = "mine-" + UUID.randomUUID();
        String other = "other-" + UUID.randomUUID();
        String theirs = topic("other-");

        List<JsonNode> created = kafkajs("kafkajs-acl-create", "alice", first,
                List.of("create-topics", "--topics", mine + "," + other), "", null);
        assertThat(created).filteredOn(e -> e.path("event").asText().equals("error")).singleElement()
                .satisfies(e -> assertThat(e.path("topics")).singleElement().satisfies(topic -> {
                    assertThat(topic.path("topic").asText()).isEqualTo(other);
                    assertThat(topic.path("error").asText()).contains("TOPIC_AUTHORIZATION_FAILED");
                }));
        await().atMost(Duration.ofSeconds(30)).until(() -> topicNames().contains(mine));
        assertThat(topicNames()).doesNotContain(other);

        List<JsonNode> deleted = kafkajs("kafkajs-acl-delete", "alice", second,
                List.of("delete-topics", "--topics", mine + "," + theirs), "", null);
        assertThat(deleted).filteredOn(e -> e.path("event").asText().equals("error")).singleElement()
                .satisfies(e -> assertThat(e.path("error").asText()).contains("TOPIC_AUTHORIZATION_FAILED"));
        await().atMost(Duration.ofSeconds(30)).until(() -> !topicNames().contains(mine));
        assertThat(topicNames()).contains(theirs);
    }

    @Test
    void committedOffsetsShowOnlyTheTopicsThePrincipalMayDescribeToJavaAdminAndKafkajs() throws Exception {
        String open = topic("open-");
        String secret = topic("secret-");
        String group = "readers-" + UUID.randomUUID();
        for (String topic : List.of(open, secret)) {
            StringClients.produce(as("admin", first), topic, "v", RECORDS);
            assertThat(StringClients.consume(as("admin", first), topic, group, RECORDS)).hasSize(RECORDS);
        }
        TopicPartition openZero = new TopicPartition(open, 0);
        TopicPartition secretZero = new TopicPartition(secret, 0);

        try (Admin admin = Admin.create(as("admin", second)); Admin bob = Admin.create(as("bob", second))) {
            assertThat(committedTopics(admin.listConsumerGroupOffsets(group))).as("the admin sees both")
                    .containsExactlyInAnyOrder(open, secret);
            assertThat(committedTopics(bob.listConsumerGroupOffsets(group)))
                    .as("all of the group's offsets, as bob may see them").containsExactly(open);
            Map<TopicPartition, OffsetAndMetadata> named = bob.listConsumerGroupOffsets(Map.of(group,
                            new ListConsumerGroupOffsetsSpec().topicPartitions(List.of(openZero, secretZero))))
                    .partitionsToOffsetAndMetadata(group).get(30, TimeUnit.SECONDS);
            assertThat(named).as("a named topic bob may not describe is refused; kafka-clients leaves it out")
                    .containsOnlyKeys(openZero);
        }

        List<JsonNode> fetched = kafkajs("kafkajs-acl-offsets", "bob", first,
                List.of("fetch-offsets", "--group", group, "--topics", open), "", null);
        assertThat(fetched).filteredOn(e -> e.path("event").asText().equals("offsets")).singleElement()
                .satisfies(e -> {
                    assertThat(e.path("topic").asText()).isEqualTo(open);
                    long sum = 0;
                    for (JsonNode partition : e.path("partitions")) {
                        sum += Long.parseLong(partition.path("offset").asText());
                    }
                    assertThat(sum).as("committed offsets over the topic's partitions").isEqualTo(RECORDS);
                });
    }

    @Test
    void anOffsetCommitNamingATopicWithoutReadCommitsTheOthersAndRefusesThatTopicAlone() throws Exception {
        String open = topic("open-");
        String closed = topic("closed-");
        String group = "readers-" + UUID.randomUUID();
        TopicPartition openZero = new TopicPartition(open, 0);
        TopicPartition closedZero = new TopicPartition(closed, 0);

        try (Admin alice = Admin.create(as("alice", first)); Admin admin = Admin.create(as("admin", second))) {
            AlterConsumerGroupOffsetsResult commit = alice.alterConsumerGroupOffsets(group, Map.of(
                    openZero, new OffsetAndMetadata(3), closedZero, new OffsetAndMetadata(3)));
            commit.partitionResult(openZero).get(30, TimeUnit.SECONDS);
            assertThatThrownBy(() -> commit.partitionResult(closedZero).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);

            assertThat(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS))
                    .as("what the group has committed").containsOnlyKeys(openZero)
                    .hasEntrySatisfying(openZero, offset -> assertThat(offset.offset()).isEqualTo(3));
        }
    }

    private static Set<String> committedTopics(ListConsumerGroupOffsetsResult result) throws Exception {
        return result.partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS).keySet().stream()
                .map(TopicPartition::topic).collect(Collectors.toSet());
    }

    @Test
    void metadataListsOnlyTheTopicsThePrincipalMayDescribe() throws Exception {
        String open = topic("open-");
        String closed = topic("closed-");
        String secret = topic("secret-");
        try (Admin alice = Admin.create(as("alice", second)); Admin bob = Admin.create(as("bob", first));
             Admin admin = Admin.create(as("admin", first))) {
            // Each proxy caches metadata for routing.metadataMaxAge, so new topics show within seconds.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(alice.listTopics().names().get(30, TimeUnit.SECONDS)).contains(open, closed)
                        .doesNotContain(secret);
                assertThat(bob.listTopics().names().get(30, TimeUnit.SECONDS)).contains(open)
                        .doesNotContain(closed, secret);
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(open, closed, secret);
            });
            assertThatThrownBy(() -> alice.describeTopics(List.of(secret)).allTopicNames().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    /** Runs kcat as {@code user} against {@code proxy}. */
    private StringClients.KcatRun kcat(String user, ConfiguredProxy proxy, String input, String... arguments)
            throws Exception {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", proxy.address(),
                "-X", "security.protocol=sasl_plaintext", "-X", "sasl.mechanisms=SCRAM-SHA-512",
                "-X", "sasl.username=" + user, "-X", "sasl.password=" + PASSWORDS.get(user)));
        command.addAll(List.of(arguments));
        return StringClients.kcat(command, input, dir);
    }

    @Test
    void kcatIsRefusedWritesAndReadsTheAclsDoNotAllowAndSeesOnlyDescribableTopics() throws Exception {
        String open = topic("open-");
        String closed = topic("closed-");
        String secret = topic("secret-");
        String lines = IntStream.range(0, RECORDS).mapToObj(i -> "kcat-" + i + "\n").reduce("", String::concat);

        StringClients.KcatRun allowed = kcat("alice", first, lines, "-P", "-t", open, "-X", "acks=all");
        StringClients.KcatRun denied = kcat("alice", first, lines, "-P", "-t", closed, "-X", "acks=all");
        StringClients.KcatRun unread = kcat("bob", second, "", "-C", "-t", open, "-o", "beginning", "-e", "-q");
        StringClients.KcatRun listing = kcat("alice", second, "", "-L");

        assertThat(allowed.exitCode()).as(allowed.stderr()).isZero();
        assertThat(endOffsetSum(open)).isEqualTo(RECORDS);
        assertThat(denied.exitCode()).as(denied.stderr()).isNotZero();
        assertThat(denied.stderr()).contains("Topic authorization failed");
        assertThat(endOffsetSum(closed)).isZero();
        assertThat(unread.stderr()).as("kcat consumer without READ").contains("Topic authorization failed");
        assertThat(unread.lines()).isEmpty();
        assertThat(String.join("\n", listing.lines())).contains(open, closed).doesNotContain(secret);
    }

    /** Runs the kafkajs client as {@code user} and returns its JSON events once it has exited or seen {@code until}. */
    private List<JsonNode> kafkajs(String name, String user, ConfiguredProxy proxy, List<String> arguments,
                                   String input, String until) throws Exception {
        List<String> all = new ArrayList<>(arguments);
        all.addAll(List.of("--brokers", proxy.address(), "--sasl-mechanism", "scram-sha-512",
                "--sasl-username", user, "--retries", "2"));
        return KafkajsRun.events(name, all, Map.of("LEASEHOLD_KAFKAJS_SASL_PASSWORD", PASSWORDS.get(user)),
                cluster.logDir(), input, until == null ? null : events -> events.stream()
                        .anyMatch(e -> e.path("event").asText().equals(until)));
    }

    @Test
    void kafkajsProducerIsRefusedTheDeniedTopicAndConsumerWithoutReadGetsTheAuthorizationError() throws Exception {
        String open = topic("open-");
        String closed = topic("closed-");
        String lines = String.join("\n", IntStream.range(0, RECORDS).mapToObj(i -> "kafkajs-" + i).toList());

        List<JsonNode> allowed = kafkajs("kafkajs-acl-allowed", "alice", first, List.of("produce", "--topic", open),
                lines, null);
        List<JsonNode> denied = kafkajs("kafkajs-acl-denied", "alice", second, List.of("produce", "--topic", closed),
                lines, null);
        List<JsonNode> unread = kafkajs("kafkajs-acl-unread", "bob", second, List.of("consume", "--topic", open,
                "--group", "readers-" + UUID.randomUUID()), "", "error");

        assertThat(KafkajsRun.count(allowed, "acked")).as("kafkajs acks: %s", allowed).isEqualTo(RECORDS);
        assertThat(KafkajsRun.count(denied, "acked")).isZero();
        assertThat(denied).filteredOn(e -> e.path("event").asText().equals("failed")).hasSize(RECORDS)
                .allSatisfy(e -> assertThat(e.path("error").asText()).contains("TOPIC_AUTHORIZATION_FAILED"));
        assertThat(endOffsetSum(closed)).isZero();
        assertThat(KafkajsRun.count(unread, "record")).isZero();
        assertThat(unread).filteredOn(e -> e.path("event").asText().equals("error")).first()
                .satisfies(e -> assertThat(e.path("error").asText())
                        .contains("KafkaJSNonRetriableError: Not authorized to access topics"));
    }

    @Test
    void aChangedAclFileTakesEffectOnBothProxiesWithoutRestart() throws Exception {
        String topic = topic("reload-");
        Map<String, Object> carol = as("carol", first);
        carol.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 5000);
        assertThatThrownBy(() -> StringClients.produce(carol, topic, "before-", 1))
                .hasRootCauseInstanceOf(AuthorizationException.class);

        Files.writeString(aclsFile, ACLS + """
                  - {principal: "User:carol", resourceType: TOPIC, patternType: PREFIXED, name: reload-,
                     operations: [WRITE, READ], permission: ALLOW}
                """);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500)).ignoreExceptions()
                .until(() -> StringClients.produce(carol, topic, "after-", 1).size() == 1);
        // Each proxy re-reads the file on its own: the second may take the change a moment later.
        List<String> read = await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
                .ignoreExceptions().until(() -> StringClients.consume(as("carol", second), topic,
                        "readers-" + UUID.randomUUID(), 1), records -> !records.isEmpty());

        assertThat(read).containsExactly("after-0");
        for (ConfiguredProxy proxy : List.of(first, second)) {
            assertThat(proxy.metrics().value("leasehold_authorization_reloads_total", "outcome=\"success\""))
                    .isGreaterThanOrEqualTo(1);
        }
    }
}
