package io.leasehold.proxy.kafscale;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.MetadataSnapshotBrokers;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's proof: a proxy whose etcd holds only KafScale v1.6's layout (brokers listed in
 * {@code P/metadata/snapshot}, no {@code P/brokers/{id}}, lease values as NodeID strings) sends
 * every record to its partition's lease owner on the first try. Both brokers run
 * {@code --ownership none}, so each accepts every partition and a misrouted batch would be
 * written, visibly, in a segment file tagged with the wrong broker id.
 */
class KafscaleLayoutRoutingTest {
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;
    private static final int RECORDS_PER_PARTITION = 100;

    @Test
    void everyRecordGoesToItsLeaseOwnerOnTheFirstTryWithOnlyTheMetadataSnapshotInEtcd() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("kafscale-routing").brokers(2).ownership("none")
                .extraBrokerArguments(List.of("--layout", "kafscale"))
                .proxyCommand(JavaCommand.ofCurrentClasspath()).start();
             Client etcd = Client.builder().endpoints(cluster.etcdEndpoint()).build()) {
            KeySchema keys = new KeySchema(cluster.prefix());
            assertThat(keysUnder(etcd, keys.brokersPrefix())).as("KafScale brokers never register").isEmpty();
            String snapshot = value(etcd, keys.metadataSnapshotKey());
            assertThat(MetadataSnapshotBrokers.parse(snapshot)).extracting(BrokerAddress::id).containsExactly(1, 2);

            cluster.createTopic(TOPIC, PARTITIONS);
            Map<Integer, Integer> owners = new TreeMap<>();
            for (int partition = 0; partition < PARTITIONS; partition++) {
                // Owners 1,1,2,2,1,1: the proxy's hash fallback over two brokers alternates with the
                // partition number, so a proxy that ignores the leases gets half of them wrong.
                int owner = (partition / 2) % 2 == 0 ? 1 : 2;
                owners.put(partition, owner);
                etcd.getKVClient().put(bytes(keys.partitionLeaseKey(TOPIC, partition)), bytes(Integer.toString(owner)))
                        .get(10, TimeUnit.SECONDS);
            }
            ProxyProcess proxy = cluster.startProxy();
            PrometheusScrape metrics = new PrometheusScrape(proxy.adminUrl());
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    metrics.value("leasehold_routing_snapshot_partitions", "") == PARTITIONS
                            && metrics.value("leasehold_routing_snapshot_brokers", "") == 2);

            produce(proxy.address());

            Map<Integer, List<String>> writers = segmentWriters(cluster.storageDir());
            owners.forEach((partition, owner) -> assertThat(writers.get(partition))
                    .as("segments of partition %d (owner %d)", partition, owner)
                    .isNotEmpty().allMatch(tag -> tag.startsWith("b" + owner + "s")));
            assertThat(Math.max(0, metrics.value("leasehold_requests_retries_total", "api=\"produce\"")))
                    .as("no produce batch needed a second try").isZero();
            assertThat(metrics.value("leasehold_routing_metadata_snapshot_rejected_total", "")).isZero();
        }
    }

    private static void produce(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            List<Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                for (int partition = 0; partition < PARTITIONS; partition++) {
                    sent.add(producer.send(new ProducerRecord<>(TOPIC, partition, "k" + i, "v" + i)));
                }
            }
            for (Future<?> future : sent) {
                future.get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Partition to the writer tags of its segment files ({@code b<brokerId>s<start>} under {@code --ownership none}). */
    private static Map<Integer, List<String>> segmentWriters(Path storage) throws IOException {
        Map<Integer, List<String>> writers = new TreeMap<>();
        try (Stream<Path> files = Files.walk(storage)) {
            files.filter(file -> file.getFileName().toString().endsWith(".log"))
                    .filter(file -> file.getParent().getParent().getFileName().toString().startsWith(TOPIC + "-"))
                    .forEach(file -> {
                        String name = file.getFileName().toString();
                        String tag = name.substring(name.indexOf('-') + 1, name.length() - ".log".length());
                        writers.computeIfAbsent(Integer.parseInt(file.getParent().getFileName().toString()),
                                p -> new ArrayList<>()).add(tag);
                    });
        }
        return writers;
    }

    private static List<String> keysUnder(Client etcd, String prefix) throws Exception {
        return etcd.getKVClient().get(bytes(prefix), GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS)
                .getKvs().stream().map(kv -> kv.getKey().toString(StandardCharsets.UTF_8)).toList();
    }

    private static String value(Client etcd, String key) throws Exception {
        return etcd.getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs().get(0).getValue()
                .toString(StandardCharsets.UTF_8);
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
