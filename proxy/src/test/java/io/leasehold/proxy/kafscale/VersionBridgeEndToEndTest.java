package io.leasehold.proxy.kafscale;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.testing.StringClients;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * Clients whose API versions KafScale's narrow table does not offer, working through the proxy's
 * version bridge with real processes: kcat (librdkafka 2.0.2 needs Fetch v4 offered to write message
 * format v2, and speaks SyncGroup/Heartbeat v3) and kafkajs 2.2.4 (SyncGroup and Heartbeat v3,
 * OffsetFetch v4) in front of brokers in {@code --layout kafscale}; and a kafka-clients producer and
 * consumer group in front of one default-layout and one KafScale-layout broker.
 */
class VersionBridgeEndToEndTest {
    private static final int RECORDS = 60;

    @Test
    void kcatAndAKafkajsGroupProduceAndConsumeThroughTwoProxiesInFrontOfKafscaleBrokers() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("bridge-kafscale").brokers(3)
                .extraBrokerArguments(List.of("--layout", "kafscale"))
                .proxyCommand(JavaCommand.ofCurrentClasspath()).start()) {
            ProxyProcess proxy1 = cluster.startProxy();
            ProxyProcess proxy2 = cluster.startProxy();
            String topic = "bridged";
            cluster.createTopic(topic, 3);
            List<String> values = IntStream.range(0, RECORDS).mapToObj(i -> "kcat-" + i).toList();

            StringClients.KcatRun produced = StringClients.kcat(List.of("timeout", "90", "kcat", "-P",
                    "-b", proxy1.address(), "-t", topic, "-X", "acks=all"), String.join("\n", values) + "\n",
                    cluster.logDir());
            assertThat(produced.exitCode()).as("kcat producer: %s", produced.stderr()).isZero();

            StringClients.KcatRun consumed = StringClients.kcat(List.of("timeout", "90", "kcat", "-b", proxy2.address(),
                    "-G", "kcat-readers", "-c", Integer.toString(RECORDS), "-f", "%s\\n", "-q",
                    "-X", "auto.offset.reset=earliest", topic), "", cluster.logDir());
            assertThat(consumed.exitCode()).as("kcat group consumer: %s", consumed.stderr()).isZero();
            assertThat(consumed.lines()).containsExactlyInAnyOrderElementsOf(values);

            try (KafkajsConsumer kafkajs = KafkajsConsumer.start("js-reader", proxy1.address(), topic, "js-readers",
                    Duration.ofMillis(500), cluster.logDir())) {
                boolean all = kafkajs.awaitReceived(RECORDS, Duration.ofSeconds(60));
                List<String> read = kafkajs.received().stream().map(KafkajsConsumer.Received::value).toList();
                assertThat(all).as("kafkajs group read %s; errors %s; log %s", read, kafkajs.errors(), kafkajs.log())
                        .isTrue();
                assertThat(read).containsAll(values);
            }
        }
    }

    @Test
    void aKafkaClientsProducerAndGroupWorkInFrontOfOneDefaultAndOneKafscaleLayoutBroker() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("bridge-mixed").brokers(2)
                .brokerArguments(2, List.of("--layout", "kafscale"))
                .proxyCommand(JavaCommand.ofCurrentClasspath()).start()) {
            ProxyProcess proxy = cluster.startProxy();
            String topic = "mixed";
            cluster.createTopic(topic, 4);
            // Bounded waits: a proxy that cannot serve the client fails the test in seconds, not hours.
            Map<String, Object> connection = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address(),
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);

            List<String> sent = StringClients.produce(connection, topic, "java-", RECORDS);
            List<String> read = StringClients.consume(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                    proxy.address()), topic, "java-readers", RECORDS);

            assertThat(read).as("read %s", read.stream().sorted().collect(Collectors.joining(",")))
                    .containsExactlyInAnyOrderElementsOf(sent);
        }
    }
}
