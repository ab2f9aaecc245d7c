package io.leasehold.bench.cluster;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.OwnerValue;
import io.leasehold.routing.snapshot.BrokerAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Writes the ownership contract's keys for a backend that does not claim partitions itself (a
 * stock Kafka cluster): the brokers' registrations, and each partition's owner. The keys
 * are plain puts without a lease, because nothing would keep such a lease alive.
 */
public final class OwnershipSeeder implements AutoCloseable {

    private final Client client;
    private final KeySchema keys;

    public OwnershipSeeder(String etcdEndpoint, KeySchema keys) {
        this.client = Client.builder().endpoints(etcdEndpoint).build();
        this.keys = keys;
    }

    public void registerBroker(BrokerAddress broker) {
        put(keys.brokerKey(broker.id()), BrokerRegistration.toJson(broker));
    }

    /** Names {@code owners.get(p)} as the owner of partition {@code p} of {@code topic}. */
    public void assignTopic(String topic, Map<Integer, Integer> owners) {
        owners.forEach((partition, brokerId) -> put(keys.partitionLeaseKey(topic, partition), OwnerValue.encode(brokerId)));
    }

    @Override
    public void close() {
        client.close();
    }

    private void put(String key, String value) {
        try {
            client.getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot write etcd key " + key, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing etcd key " + key, e);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
