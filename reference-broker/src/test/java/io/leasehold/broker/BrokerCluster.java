package io.leasehold.broker;

import io.leasehold.routing.testing.EtcdServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Reference brokers started in this JVM on free loopback ports, sharing one temporary data
 * directory and one etcd key prefix (unique per cluster, so test classes sharing an etcd do not
 * see each other). Closing stops the brokers and deletes the directory.
 */
final class BrokerCluster implements AutoCloseable {

    private final EtcdServer etcd;
    private final Path dataDir;
    private final String prefix = "/test-" + UUID.randomUUID();
    private final List<ReferenceBroker> brokers = new ArrayList<>();

    BrokerCluster(EtcdServer etcd) {
        this.etcd = etcd;
        try {
            this.dataDir = Files.createTempDirectory("leasehold-broker-data-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    ReferenceBroker start(int id, BrokerOptions.OwnershipMode ownership) throws Exception {
        return start(id, ownership, BrokerOptions.Layout.DEFAULT);
    }

    ReferenceBroker start(int id, BrokerOptions.OwnershipMode ownership, BrokerOptions.Layout layout) throws Exception {
        ReferenceBroker broker = ReferenceBroker.start(new BrokerOptions(id, "127.0.0.1", 0, List.of(etcd.endpoint()),
                dataDir, prefix, Duration.ofSeconds(5), ownership, layout));
        brokers.add(broker);
        return broker;
    }

    ReferenceBroker start(int id) throws Exception {
        return start(id, BrokerOptions.OwnershipMode.LEASE);
    }

    String prefix() {
        return prefix;
    }

    Path dataDir() {
        return dataDir;
    }

    String bootstrap() {
        return brokers.stream().map(b -> "127.0.0.1:" + b.port()).collect(Collectors.joining(","));
    }

    static String bootstrap(ReferenceBroker broker) {
        return "127.0.0.1:" + broker.port();
    }

    Admin admin() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20_000);
        return Admin.create(props);
    }

    void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        }
    }

    /** A producer with kafka-clients' default settings (idempotence on, acks=all) apart from the address. */
    KafkaProducer<String, String> defaultProducer(String bootstrap) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    KafkaConsumer<String, String> consumer(String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        if (group != null) {
            props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    @Override
    public void close() {
        brokers.forEach(ReferenceBroker::close);
        brokers.clear();
        try (Stream<Path> paths = Files.walk(dataDir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
