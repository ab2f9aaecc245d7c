package io.leasehold.bench.suite;

import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.LocalCluster;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * Lease-aware reference brokers: they claim partitions themselves on first write, so creating a
 * topic is all the set-up there is; ownership spreads over the brokers as they are written to
 * (a requested placement cannot be honoured, and the plan asks for {@link Placement#CLAIMED}).
 */
public final class ReferenceBackend implements Backend {

    private final LocalCluster cluster;

    public ReferenceBackend(LocalCluster cluster) {
        this.cluster = cluster;
    }

    @Override
    public String name() {
        return "reference";
    }

    @Override
    public String directBootstrap() {
        return cluster.bootstrapServers();
    }

    @Override
    public List<Long> pids() {
        return cluster.brokers().stream().filter(BrokerProcess::isAlive).map(b -> b.process().pid()).toList();
    }

    @Override
    public void createTopic(String topic, int partitions, Placement placement) {
        Properties properties = new Properties();
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, directBootstrap());
        try (Admin admin = Admin.create(properties)) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot create topic " + topic + " on the reference brokers", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + topic, e);
        }
    }

    /** Reference brokers hold etcd leases: a stopped one loses its partitions, which is another test. */
    @Override
    public Optional<StallableOwner> stallableOwner() {
        return Optional.empty();
    }
}
