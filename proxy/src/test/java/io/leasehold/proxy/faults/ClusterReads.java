package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;

/** Waits the client end-to-end tests share: for partitions to be owned, and for readers to read. */
final class ClusterReads {
    private ClusterReads() {
    }

    /** Waits until every partition of {@code topic} has an owner in etcd; partition to owner id. */
    static Map<Integer, Integer> awaitEveryPartitionOwned(LocalCluster cluster, String topic, int partitions,
                                                          Duration within) {
        return await().atMost(within).until(() -> {
            Map<Integer, Integer> owners = new TreeMap<>();
            for (int p = 0; p < partitions; p++) {
                OptionalInt owner = cluster.partitionOwner(topic, p);
                if (owner.isPresent()) {
                    owners.put(p, owner.getAsInt());
                }
            }
            return owners;
        }, owners -> owners.size() == partitions);
    }

    /**
     * Waits until every reader read every record of {@code wanted}; the last of {@code readers} is
     * filled here from what {@code kafkajs} received.
     */
    static void awaitRead(List<ReadLog> readers, KafkajsConsumer kafkajs, Set<String> wanted, Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            copyKafkajs(kafkajs, readers.get(readers.size() - 1));
            for (ReadLog reader : readers) {
                assertThat(reader.missing(wanted)).as(reader.reader() + " records not read yet").isEmpty();
            }
        });
    }

    /** Adds to {@code into} the records {@code kafkajs} received since the last copy. */
    static void copyKafkajs(KafkajsConsumer kafkajs, ReadLog into) {
        List<KafkajsConsumer.Received> received = kafkajs.received();
        for (int i = into.count(); i < received.size(); i++) {
            KafkajsConsumer.Received r = received.get(i);
            into.read(r.value(), r.partition(), r.receivedAtMillis());
        }
    }
}
