package io.leasehold.bench.cluster;

import io.leasehold.routing.testing.LoopbackPorts;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.RetriableException;

/**
 * A real Apache Kafka cluster of {@code size} KRaft nodes on loopback, ids 1..size, node 1 also
 * the (single) controller. Topics are created with one replica per partition on an explicit node,
 * so a benchmark decides which broker leads which partition.
 */
public final class KafkaCluster implements AutoCloseable {

    public static final int FIRST_NODE_ID = 1;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final List<KafkaNode> nodes;

    private KafkaCluster(List<KafkaNode> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /**
     * Formats every node's storage (in parallel), starts the nodes and waits until all of them are
     * registered.
     *
     * @param classpath a class path holding the kafka_2.13 artifact and its dependencies
     */
    public static KafkaCluster start(String classpath, int size, Path logDir) {
        String clusterId = Uuid.randomUuid().toString();
        int controllerPort = LoopbackPorts.take();
        List<KafkaNode.Prepared> prepared = new ArrayList<>();
        List<KafkaNode> started = new ArrayList<>();
        try {
            for (int id = FIRST_NODE_ID; id < FIRST_NODE_ID + size; id++) {
                prepared.add(KafkaNode.prepare(classpath, KafkaNode.Layout.of(id, FIRST_NODE_ID, controllerPort),
                        clusterId, logDir));
            }
            while (!prepared.isEmpty()) {
                started.add(prepared.remove(0).start(classpath, logDir));
            }
            KafkaCluster cluster = new KafkaCluster(started);
            cluster.awaitServing(size);
            return cluster;
        } catch (RuntimeException e) {
            prepared.forEach(KafkaNode.Prepared::discard);
            started.forEach(KafkaNode::close);
            throw e;
        }
    }

    public List<KafkaNode> nodes() {
        return nodes;
    }

    public KafkaNode node(int id) {
        return nodes.stream().filter(n -> n.id() == id).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no Kafka node " + id + " in " + nodes.size() + " nodes"));
    }

    public String bootstrap() {
        return nodes.stream().map(KafkaNode::address).collect(Collectors.joining(","));
    }

    /**
     * Creates a topic whose partition {@code p} has its one replica on node {@code leaders.get(p)},
     * waits until every partition has a leader, and returns partition → leader as Kafka reports it.
     * Old segments are deleted early so that a long run at full speed cannot fill the disk.
     */
    public Map<Integer, Integer> createTopic(String topic, Map<Integer, Integer> leaders) {
        Map<Integer, List<Integer>> replicas = new TreeMap<>();
        leaders.forEach((partition, node) -> replicas.put(partition, List.of(node)));
        try (Admin admin = admin()) {
            NewTopic newTopic = new NewTopic(topic, replicas).configs(Map.of(
                    "segment.bytes", Integer.toString(64 << 20),
                    "retention.bytes", Long.toString(384L << 20)));
            admin.createTopics(List.of(newTopic)).all().get(60, TimeUnit.SECONDS);
            return awaitLeaders(admin, topic);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + topic + " on Kafka at " + bootstrap(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        }
    }

    /** Waits until every node answers a request of its own again, e.g. after it was paused. */
    public void awaitAnswering(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (KafkaNode node : nodes) {
            try (Admin admin = admin(node.address())) {
                while (true) {
                    try {
                        admin.describeCluster().clusterId().get(5, TimeUnit.SECONDS);
                        break;
                    } catch (ExecutionException | TimeoutException e) {
                        if (System.nanoTime() > deadline) {
                            throw new IllegalStateException("Kafka node " + node.id() + " not answering within "
                                    + timeout, e);
                        }
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for Kafka", e);
            }
        }
    }

    @Override
    public void close() {
        nodes.forEach(KafkaNode::close);
    }

    private void awaitServing(int size) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        try (Admin admin = admin()) {
            while (System.nanoTime() < deadline) {
                for (KafkaNode node : nodes) {
                    if (!node.isAlive()) {
                        throw new IllegalStateException(node.describeExit());
                    }
                }
                if (nodes.stream().allMatch(KafkaCluster::acceptsConnections)) {
                    try {
                        if (admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).size() == size) {
                            return;
                        }
                    } catch (ExecutionException | TimeoutException e) {
                        // Not serving yet: the listeners are still coming up. Ask again.
                    }
                }
                sleep(200);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
        throw new IllegalStateException("Kafka at " + bootstrap() + ": not all " + size + " nodes registered within "
                + START_TIMEOUT + "; logs in the log directory (kafka-N.stderr)");
    }

    private static Map<Integer, Integer> awaitLeaders(Admin admin, String topic)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            TopicDescription description;
            try {
                description = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof RetriableException)) {
                    throw e;
                }
                // The broker asked has not seen the new topic yet (its metadata lags on a busy machine).
                Thread.sleep(100);
                continue;
            }
            if (description.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty())) {
                Map<Integer, Integer> leaders = new TreeMap<>();
                for (TopicPartitionInfo info : description.partitions()) {
                    leaders.put(info.partition(), info.leader().id());
                }
                return leaders;
            }
            Thread.sleep(100);
        }
        throw new TimeoutException("partitions of " + topic + " have no leader after 60 s");
    }

    private static boolean acceptsConnections(KafkaNode node) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(node.host(), node.port()), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Kafka", e);
        }
    }

    private Admin admin() {
        return admin(bootstrap());
    }

    private static Admin admin(String bootstrap) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        properties.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        properties.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        return Admin.create(properties);
    }
}
