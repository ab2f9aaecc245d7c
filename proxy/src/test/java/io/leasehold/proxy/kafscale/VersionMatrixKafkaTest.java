package io.leasehold.proxy.kafscale;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.SaslKafkaBroker;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.OwnerValue;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.testing.LocalCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 25 item 2 in front of a real Apache Kafka 4.4 broker (the authority on what an answer
 * should be): every version of every API the proxy advertises is served. The broker requires
 * SASL, and the proxy logs in to it as {@code backends.sasl} says; etcd names it the owner of the
 * topic and group the sample requests use.
 */
class VersionMatrixKafkaTest {
    private static final String USER = "matrix-svc";
    private static final String PASSWORD = "svc-" + UUID.randomUUID();
    private static final String TOPIC = "matrix";
    private static final String GROUP = "matrix-group";
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(15);

    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static SaslKafkaBroker kafka;
    private static ConfiguredProxy proxy;

    @BeforeAll
    static void start() throws Exception {
        cluster = LocalCluster.builder("matrix-kafka").brokers(0).start();
        kafka = SaslKafkaBroker.start(USER, PASSWORD, Duration.ofHours(1), cluster.logDir());
        KeySchema keys = new KeySchema(cluster.prefix());
        try (Client etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build()) {
            put(etcd, keys.brokerKey(SaslKafkaBroker.ID),
                    BrokerRegistration.toJson(new BrokerAddress(SaslKafkaBroker.ID, "127.0.0.1", kafka.saslPort(), null)));
            put(etcd, keys.partitionLeaseKey(TOPIC, 0), OwnerValue.encode(SaslKafkaBroker.ID));
            put(etcd, keys.groupLeaseKey(GROUP), OwnerValue.encode(SaslKafkaBroker.ID));
        }
        try (Admin admin = internalAdmin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 1))).all().get();
        }
        Path password = Files.writeString(dir.resolve("matrix.password"), PASSWORD + "\n");
        proxy = ConfiguredProxy.builder(cluster, dir, "matrix-kafka-proxy")
                .backends("{ bootstrap: [\"" + kafka.saslAddress() + "\"], sasl: { mechanism: SCRAM-SHA-512, username: "
                        + USER + ", passwordFile: " + password + " } }")
                .start();
    }

    /** Stops the proxy first: its log, written with paranoid leak detection, must show no leaked buffer. */
    @AfterAll
    static void stop() throws Exception {
        try {
            if (proxy != null) {
                assertThat(proxy.stop()).as("the proxy's log").doesNotContain("LEAK:");
            }
        } finally {
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
    }

    @Test
    void everyAdvertisedVersionOfEveryApiIsServed() throws Exception {
        Uuid topicId;
        try (Admin admin = internalAdmin()) {
            topicId = admin.describeTopics(List.of(TOPIC)).allTopicNames().get().get(TOPIC).topicId();
        }
        List<VersionMatrix.Row> rows = new VersionMatrix("127.0.0.1", proxy.port(), ANSWER_WITHIN)
                .probe(new SampleRequests(TOPIC, topicId, GROUP, "kafka"));
        String table = VersionMatrix.markdown("Apache Kafka 4.4", rows);
        Files.writeString(Path.of("target", "version-matrix-kafka.md"), table);
        System.out.println(table);

        assertThat(rows).as("APIs advertised").hasSizeGreaterThan(20);
        assertThat(rows).flatExtracting(VersionMatrix.Row::unserved).as(table).isEmpty();
    }

    private static Admin internalAdmin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.internalAddress()));
    }

    private static void put(Client etcd, String key, String value) throws Exception {
        etcd.getKVClient().put(ByteSequence.from(key, StandardCharsets.UTF_8),
                ByteSequence.from(value, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
    }
}
