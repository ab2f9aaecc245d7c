package io.leasehold.bench.suite;

import io.leasehold.bench.cluster.KafkaBroker;
import io.leasehold.bench.cluster.OwnershipSeeder;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.util.List;

/**
 * A stock Kafka broker, registered in etcd and named owner of every partition of every topic the
 * suite creates, so that the proxy routes everything to it.
 */
public final class KafkaBackend implements Backend {

    private final KafkaBroker broker;
    private final OwnershipSeeder seeder;

    public KafkaBackend(KafkaBroker broker, OwnershipSeeder seeder) {
        this.broker = broker;
        this.seeder = seeder;
        seeder.registerBroker(new BrokerAddress(KafkaBroker.NODE_ID, broker.host(), broker.port(), null));
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public String directBootstrap() {
        return broker.bootstrap();
    }

    @Override
    public List<Long> pids() {
        return List.of(broker.pid());
    }

    @Override
    public void createTopic(String topic, int partitions) {
        broker.createTopic(topic, partitions);
        seeder.assignTopic(topic, partitions, KafkaBroker.NODE_ID);
    }
}
