package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.KafkajsRun;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real Apache Kafka broker that requires SASL (SCRAM-SHA-512 and PLAIN, sessions of
 * {@link #SESSION_LIFETIME}) behind proxies whose broker connections log in with
 * {@code backends.sasl}; etcd names the broker as owner of every partition and group. Real
 * kafka-clients, kcat and kafkajs clients use the proxies' plaintext listeners.
 */
class BackendSaslTest {
    private static final String USER = "leasehold-svc";
    private static final String PASSWORD = "svc-" + UUID.randomUUID();
    /** Short, so that every test outlives several broker sessions. */
    private static final Duration SESSION_LIFETIME = Duration.ofSeconds(5);
    private static final int RECORDS = 50;

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static SaslKafkaBroker kafka;

    @BeforeAll
    static void startKafkaAndEtcd() throws Exception {
        cluster = LocalCluster.builder("backend-sasl").brokers(0).start();
        kafka = SaslKafkaBroker.start(USER, PASSWORD, SESSION_LIFETIME, cluster.logDir());
        put(new KeySchema(cluster.prefix()).brokerKey(SaslKafkaBroker.ID),
                BrokerRegistration.toJson(new BrokerAddress(SaslKafkaBroker.ID, "127.0.0.1", kafka.saslPort(), null)));
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void javaKcatAndKafkajsClientsProduceAndConsumeThroughAProxyThatLogsInWithScramSha512() throws Exception {
        String topic = ownedTopic("scram", 2);
        try (ConfiguredProxy proxy = proxy("scram", "SCRAM-SHA-512", passwordFile("scram", PASSWORD))) {
            List<String> sent = new ArrayList<>(StringClients.produce(through(proxy), topic, "java-", RECORDS));
            List<String> kcatValues = IntStream.range(0, RECORDS).mapToObj(i -> "kcat-" + i).toList();
            StringClients.KcatRun kcat = StringClients.kcat(List.of("timeout", "60", "kcat", "-P", "-b",
                    proxy.address(), "-t", topic, "-X", "acks=all"), String.join("\n", kcatValues) + "\n", dir);
            assertThat(kcat.exitCode()).as("kcat producer; stderr %s", kcat.stderr()).isZero();
            sent.addAll(kcatValues);
            List<String> jsValues = IntStream.range(0, RECORDS).mapToObj(i -> "kafkajs-" + i).toList();
            List<JsonNode> produced = KafkajsRun.events("kafkajs-produce-sasl-backend", List.of("produce", "--brokers",
                    proxy.address(), "--topic", topic), Map.of(), cluster.logDir(), String.join("\n", jsValues), null);
            assertThat(KafkajsRun.count(produced, "acked")).as("kafkajs acks: %s", produced).isEqualTo(RECORDS);
            sent.addAll(jsValues);

            assertThat(StringClients.consume(through(proxy), topic, group("java-readers"), sent.size()))
                    .as("a kafka-clients consumer group").containsExactlyInAnyOrderElementsOf(sent);
            StringClients.KcatRun kcatRead = StringClients.kcat(List.of("timeout", "60", "kcat", "-C", "-b",
                    proxy.address(), "-t", topic, "-o", "beginning", "-e", "-q"), "", dir);
            assertThat(kcatRead.lines()).as("kcat reader; stderr %s", kcatRead.stderr())
                    .containsExactlyInAnyOrderElementsOf(sent);
            List<JsonNode> consumed = KafkajsRun.events("kafkajs-consume-sasl-backend", List.of("consume", "--brokers",
                    proxy.address(), "--topic", topic, "--group", group("js-readers")), Map.of(), cluster.logDir(), "",
                    KafkajsRun.untilRecords(sent.size()));
            assertThat(consumed.stream().filter(e -> e.path("event").asText().equals("record"))
                    .map(e -> e.path("value").asText()).toList()).as("kafkajs group reader")
                    .containsExactlyInAnyOrderElementsOf(sent);

            assertThat(proxy.metrics().value("leasehold_backend_authentication_failures_total", "")).isZero();
            String log = proxy.stop();
            assertThat(log).doesNotContain("SASL login to broker").doesNotContain(PASSWORD);
        }
    }

    @Test
    void plainLogsInToTheSameBroker() throws Exception {
        String topic = ownedTopic("plain", 1);
        try (ConfiguredProxy proxy = proxy("plain", "PLAIN", passwordFile("plain", PASSWORD))) {
            List<String> sent = StringClients.produce(through(proxy), topic, "plain-", RECORDS);
            assertThat(StringClients.consume(through(proxy), topic, group("plain-readers"), sent.size()))
                    .containsExactlyInAnyOrderElementsOf(sent);
            assertThat(proxy.stop()).as("PLAIN without backends.tls is allowed but said at start")
                    .contains("backends.sasl uses PLAIN without backends.tls")
                    .doesNotContain("SASL login to broker");
        }
    }

    @Test
    void aWrongPasswordMakesTheBrokerUnreachableUntilThePasswordFileIsFixed() throws Exception {
        String topic = ownedTopic("wrong", 1);
        Path password = passwordFile("wrong", "not-the-password");
        try (ConfiguredProxy proxy = proxy("wrong", "SCRAM-SHA-512", password)) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(sendOne(proxy, topic))
                    .as("the broker cannot be logged in to: a retriable error, not a hang")
                    .isInstanceOf(RetriableException.class));
            assertThat(Files.readString(proxy.process().stderrLog())).as("the proxy says which broker and why")
                    .contains("SASL login to broker " + kafka.saslAddress() + " as user " + USER
                            + " with SCRAM-SHA-512 failed, so it counts as unreachable")
                    .contains("invalid credentials")
                    .doesNotContain("not-the-password");
            assertThat(proxy.metrics().value("leasehold_backend_authentication_failures_total", ""))
                    .isGreaterThanOrEqualTo(1);

            Files.writeString(password, PASSWORD + "\n");
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThat(sendOne(proxy, topic))
                    .as("the changed password file is used for the next broker connection").isNull());
            assertThat(proxy.stop()).doesNotContain(PASSWORD);
        }
    }

    @Test
    void connectionsAreRetiredBeforeTheBrokersSessionEndsSoNoRequestFails() throws Exception {
        String topic = ownedTopic("lifetime", 1);
        try (ConfiguredProxy proxy = proxy("lifetime", "SCRAM-SHA-512", passwordFile("lifetime", PASSWORD))) {
            Map<String, Object> settings = new HashMap<>(through(proxy));
            settings.putAll(noRetries());
            long sessions = 3;
            int sent = 0;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings)) {
                long end = System.nanoTime() + SESSION_LIFETIME.toNanos() * sessions;
                // One record every 200 ms on the same client connection, through several broker sessions.
                while (System.nanoTime() < end && sent < 200) {
                    producer.send(new ProducerRecord<>(topic, 0, "k", "v" + sent)).get(20, TimeUnit.SECONDS);
                    sent++;
                    Thread.sleep(200);
                }
            }
            assertThat(sent).isGreaterThan(10);
            assertThat(proxy.metrics().value("leasehold_backend_connections_opened_total", ""))
                    .as("fresh broker connections replaced the ones whose session ran out")
                    .isGreaterThanOrEqualTo(sessions);
        }
    }

    private static ConfiguredProxy proxy(String name, String mechanism, Path passwordFile) {
        return ConfiguredProxy.builder(cluster, dir, "sasl-backend-" + name)
                .backends("{ bootstrap: [\"" + kafka.saslAddress() + "\"], sasl: { mechanism: " + mechanism
                        + ", username: " + USER + ", passwordFile: " + passwordFile + " } }")
                .start();
    }

    private static Path passwordFile(String name, String password) throws Exception {
        return Files.writeString(dir.resolve(name + ".password"), password + "\n");
    }

    /** Creates {@code topic-UUID} on the broker and names the broker its owner, and of its groups, in etcd. */
    private static String ownedTopic(String name, int partitions) throws Exception {
        String topic = name + "-" + UUID.randomUUID();
        StringClients.createTopic(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.internalAddress()),
                topic, partitions);
        KeySchema keys = new KeySchema(cluster.prefix());
        for (int p = 0; p < partitions; p++) {
            put(keys.partitionLeaseKey(topic, p), OwnerValue.encode(SaslKafkaBroker.ID));
        }
        return topic;
    }

    /** A consumer group the broker owns as far as etcd says. */
    private static String group(String name) throws Exception {
        String group = name + "-" + UUID.randomUUID();
        put(new KeySchema(cluster.prefix()).groupLeaseKey(group), OwnerValue.encode(SaslKafkaBroker.ID));
        return group;
    }

    /** Clients of {@code proxy}; a producer that gets no metadata gives up after 20 s instead of 60 s per record. */
    private static Map<String, Object> through(ConfiguredProxy proxy) {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address(),
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
    }

    private static Map<String, Object> noRetries() {
        return Map.of(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false,
                ProducerConfig.RETRIES_CONFIG, 0,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
    }

    /** Sends one record to partition 0 without retries; the cause of its failure, or {@code null} once acked. */
    private static Throwable sendOne(ConfiguredProxy proxy, String topic) throws Exception {
        Map<String, Object> settings = new HashMap<>(through(proxy));
        settings.putAll(noRetries());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(settings)) {
            producer.send(new ProducerRecord<>(topic, 0, "k", "v")).get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            return e;
        }
    }

    private static void put(String key, String value) throws Exception {
        try (Client etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build()) {
            etcd.getKVClient().put(ByteSequence.from(key, StandardCharsets.UTF_8),
                    ByteSequence.from(value, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
        }
    }
}
