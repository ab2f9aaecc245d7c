package io.leasehold.bench.suite;

import io.leasehold.bench.cluster.KafkaCluster;
import io.leasehold.bench.cluster.KafkaNode;
import io.leasehold.bench.cluster.OwnershipSeeder;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A stock Kafka cluster, every node registered in etcd, and every partition of every topic the
 * suite creates named as owned by the broker Kafka made its leader, so that the proxies route
 * each partition to its real leader.
 */
public final class KafkaBackend implements Backend {

    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaCluster cluster;
    private final OwnershipSeeder seeder;
    private final Map<String, Map<Integer, Integer>> leaders = new ConcurrentHashMap<>();

    public KafkaBackend(KafkaCluster cluster, OwnershipSeeder seeder) {
        this.cluster = cluster;
        this.seeder = seeder;
        for (KafkaNode node : cluster.nodes()) {
            seeder.registerBroker(new BrokerAddress(node.id(), node.host(), node.port(), null));
        }
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String directBootstrap() {
        return cluster.bootstrap();
    }

    @Override
    public List<Long> pids() {
        return cluster.nodes().stream().map(KafkaNode::pid).toList();
    }

    @Override
    public void createTopic(String topic, int partitions, Placement placement) {
        int nodes = cluster.nodes().size();
        Map<Integer, Integer> wanted = new TreeMap<>();
        for (int partition = 0; partition < partitions; partition++) {
            int index = placement == Placement.SPREAD ? partition % nodes : 0;
            wanted.put(partition, cluster.nodes().get(index).id());
        }
        Map<Integer, Integer> actual = cluster.createTopic(topic, wanted);
        leaders.put(topic, actual);
        seeder.assignTopic(topic, actual);
    }

    /** The last node: never the controller, so stopping it leaves the cluster's metadata served. */
    @Override
    public Optional<StallableOwner> stallableOwner() {
        KafkaNode node = cluster.nodes().get(cluster.nodes().size() - 1);
        if (node.id() == KafkaCluster.FIRST_NODE_ID) {
            return Optional.empty();
        }
        return Optional.of(new StallableOwner() {
            @Override
            public int brokerId() {
                return node.id();
            }

            @Override
            public void pause() {
                node.pause();
            }

            @Override
            public void resume() {
                node.resume();
            }

            @Override
            public void awaitRecovered() {
                cluster.awaitAnswering(RECOVERY_TIMEOUT);
            }

            @Override
            public List<Integer> ownedPartitions(String topic) {
                return leaders.getOrDefault(topic, Map.of()).entrySet().stream()
                        .filter(e -> e.getValue() == node.id()).map(Map.Entry::getKey).toList();
            }
        });
    }
}
