package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import io.leasehold.testing.ProxyProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The node-per-owner presentation with real clients of every stack: etcd, three reference
 * brokers (ids 1..3, 2 s leases) and two proxies, each listening on its own three node ports.
 * A Java producer and a kcat producer write through proxy B, a kafkajs producer through proxy
 * A; a Java consumer group and a kcat consumer read through proxy A, a kafkajs consumer through
 * proxy B. Metadata must show each partition led by its owner's node; the clients must really
 * connect to several node ports; then one owner is SIGKILLed (its node leaves Metadata) and
 * another SIGSTOPped past its lease and resumed. No producer may fail a record, and every reader
 * must read every acknowledged record.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NodePerOwnerClientsTest {

    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int PARTITIONS = 6;
    private static final int FIRST_BROKER_ID = 1;
    private static final int BROKERS = 3;
    private static final Duration PROGRESS = Duration.ofSeconds(60);
    private static final Pattern NODE_CONNECTIONS =
            Pattern.compile("leasehold_listener_connections_accepted_total\\{listener=\"node-(\\d+)\"[^}]*} ([0-9.E]+)");

    private LocalCluster cluster;
    private ProxyProcess proxyA;
    private ProxyProcess proxyB;

    @BeforeAll
    void startCluster() {
        cluster = LocalCluster.builder("node-per-owner").brokers(1).leaseTtl(TTL)
                .proxyCommand(JavaCommand.ofCurrentClasspath())
                .start();
        // One at a time: on two shared cores three JVMs starting at once can miss the brokers' 10 s lease grant.
        for (int id = FIRST_BROKER_ID + 1; id < FIRST_BROKER_ID + BROKERS; id++) {
            cluster.startBroker(id);
        }
        proxyA = cluster.startProxy(NodePerOwnerEnvironment.of(FIRST_BROKER_ID, BROKERS));
        proxyB = cluster.startProxy(NodePerOwnerEnvironment.of(FIRST_BROKER_ID, BROKERS));
    }

    @AfterAll
    void stopCluster() throws IOException {
        try {
            if (cluster != null) {
                ProxyExits.assertCleanExits(cluster);
            }
        } finally {
            if (cluster != null) {
                cluster.close();
            }
        }
    }

    @Test
    void everyClientStackProducesAndConsumesThroughOwnerNodesAcrossAKillAndAPausePastTheLease() throws Exception {
        String topic = "nodes";
        cluster.createTopic(topic, PARTITIONS);
        JavaWriter javaWriter = new JavaWriter(proxyB.address(), topic, PARTITIONS, 10);
        KcatWriter kcatWriter = new KcatWriter(proxyB.address(), topic, 20, cluster.logDir());
        KafkajsWriter kafkajsWriter = new KafkajsWriter(proxyA.address(), topic, 20, cluster.logDir());
        JavaGroupReader javaReader = null;
        KcatReader kcatReader = null;
        KafkajsConsumer kafkajs = null;
        try {
            await().atMost(PROGRESS).until(() -> javaWriter.acked().size() >= 50 && kafkajsWriter.acked().size() >= 20);
            Map<Integer, Integer> owners = ClusterReads.awaitEveryPartitionOwned(cluster, topic, PARTITIONS, PROGRESS);
            // Unowned partitions are claimed on the fallback broker, which spreads them over all three; a broker
            // that is too slow under load to answer its first produce loses its partitions to the next broker.
            assertThat(new HashSet<>(owners.values())).as("owners of the partitions").hasSizeGreaterThanOrEqualTo(2);
            assertThat(cluster.leaders(proxyA.address(), topic)).as("leaders through proxy A are the owners' nodes")
                    .isEqualTo(owners);
            assertThat(cluster.leaders(proxyB.address(), topic)).as("leaders through proxy B").isEqualTo(owners);

            javaReader = new JavaGroupReader(proxyA.address(), topic, "node-group", 2, 100);
            kcatReader = new KcatReader(proxyA.address(), topic, 100, cluster.logDir());
            kafkajs = KafkajsConsumer.start("kafkajs-nodes", proxyB.address(), topic, "kafkajs-nodes",
                    Duration.ofMillis(100), cluster.logDir());
            ReadLog kafkajsReads = new ReadLog("kafkajs consumer");
            List<ReadLog> readers = List.of(javaReader.log(), kcatReader.log(), kafkajsReads);
            KafkajsConsumer js = kafkajs;
            ClusterReads.awaitRead(readers, js, javaWriter.acked(), PROGRESS);

            for (ProxyProcess proxy : List.of(proxyA, proxyB)) {
                assertThat(nodeConnections(proxy).keySet()).as("node ports " + proxy + " took connections on")
                        .hasSizeGreaterThanOrEqualTo(2);
            }

            int killed = owners.get(0);
            cluster.broker(killed).kill();
            await().atMost(PROGRESS).untilAsserted(() -> assertThat(nodeIds(proxyA)).as("nodes through proxy A")
                    .doesNotContain(killed).isNotEmpty());
            Set<String> beforePause = new HashSet<>(javaWriter.acked());
            ClusterReads.awaitRead(readers, js, beforePause, PROGRESS);

            int paused = owners.values().stream().filter(id -> id != killed).findFirst().orElseThrow();
            BrokerProcess pausedBroker = cluster.broker(paused);
            pausedBroker.pauseFor(TTL.plusSeconds(2));
            Set<String> afterPause = new HashSet<>(javaWriter.acked());
            await().atMost(PROGRESS).until(() -> javaWriter.acked().size() >= afterPause.size() + 100);

            javaWriter.close();
            kcatWriter.finish();
            boolean kafkajsDone = kafkajsWriter.finish();
            Set<String> acked = new HashSet<>(javaWriter.acked());
            acked.addAll(kafkajsWriter.acked());
            if (kcatWriter.exitCode() == 0 && kcatWriter.deliveryFailures().isEmpty()) {
                acked.addAll(kcatWriter.sent());
            }
            ClusterReads.awaitRead(readers, js, acked, PROGRESS);

            assertThat(javaWriter.failures()).as("records the Java producer failed").isEmpty();
            assertThat(kcatWriter.deliveryFailures()).as("records kcat failed, see " + kcatWriter.log()).isEmpty();
            assertThat(kcatWriter.exitCode()).as("kcat producer exit code, see " + kcatWriter.log()).isZero();
            assertThat(kafkajsWriter.failures()).as("records kafkajs failed, see " + kafkajsWriter.log()).isEmpty();
            assertThat(kafkajsDone).as("kafkajs producer finished (%d records unanswered), see %s",
                    kafkajsWriter.unanswered(), kafkajsWriter.log()).isTrue();
            assertThat(kafkajsWriter.exitCode()).as("kafkajs producer exit code").isZero();
            assertThat(javaReader.errors()).as("what poll() threw").isEmpty();
            assertThat(kcatReader.isAlive()).as("kcat consumer still running, see " + kcatReader.stderr()).isTrue();
            assertThat(kafkajs.errors()).as("errors kafkajs gave up on, see " + kafkajs.log()).isEmpty();
            for (ReadLog reader : readers) {
                assertThat(reader.missing(acked)).as(reader.reader() + " misses acknowledged records").isEmpty();
            }
            System.out.printf("node-per-owner: owners %s; %d acknowledged records (java %d, kcat %d, kafkajs %d); node port "
                            + "connections proxy A %s, proxy B %s%n", owners, acked.size(), javaWriter.acked().size(),
                    kcatWriter.sent().size(), kafkajsWriter.acked().size(), nodeConnections(proxyA),
                    nodeConnections(proxyB));
        } finally {
            javaWriter.close();
            kcatWriter.kill();
            kafkajsWriter.kill();
            if (javaReader != null) {
                javaReader.close();
            }
            if (kcatReader != null) {
                kcatReader.close();
            }
            if (kafkajs != null) {
                kafkajs.close();
            }
        }
    }

    /** The node ids a real admin client sees in the cluster through {@code proxy}. */
    private static Set<Integer> nodeIds(ProxyProcess proxy) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, proxy.address()))) {
            return admin.describeCluster().nodes().get().stream().map(Node::id)
                    .collect(Collectors.toCollection(TreeSet::new));
        }
    }

    /** Connections each node port of {@code proxy} accepted, by node id, from its metrics. */
    private static Map<Integer, Double> nodeConnections(ProxyProcess proxy) throws Exception {
        HttpResponse<String> metrics = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(proxy.adminUrl() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        Map<Integer, Double> connections = new TreeMap<>();
        Matcher matcher = NODE_CONNECTIONS.matcher(metrics.body());
        while (matcher.find()) {
            connections.put(Integer.parseInt(matcher.group(1)), Double.parseDouble(matcher.group(2)));
        }
        return connections;
    }
}
