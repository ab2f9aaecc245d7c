package io.leasehold.proxy.owners;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.leasehold.routing.watch.RoutingTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Chooses brokers from the routing snapshot: the owner when one is known and registered,
 * otherwise a fallback that every proxy computes alike (a hash over the live broker ids in
 * sorted order) and that moves to the next broker on each retry, so retries try different
 * brokers. With no broker registered in etcd yet, the configured bootstrap brokers are used.
 */
public final class OwnerLookup {
    private final RoutingTable routes;
    private final List<BrokerAddress> bootstrap;

    public OwnerLookup(RoutingTable routes, List<BrokerAddress> bootstrap) {
        this.routes = routes;
        this.bootstrap = List.copyOf(bootstrap);
    }

    public RoutingTable routes() {
        return routes;
    }

    /** The current snapshot (one read, so a whole request routes on one consistent view). */
    public RoutingSnapshot snapshot() {
        return routes.snapshot();
    }

    /** Route for a partition on retry number {@code attempt} (0 = first try). */
    public Target partition(RoutingSnapshot snapshot, String topic, int partition, int attempt) {
        Ownership owner = snapshot.partitionOwner(topic, partition);
        int suppressed = owner == null ? routes.suppressedPartitionOwner(topic, partition) : RoutingTable.NONE_SUPPRESSED;
        return route(snapshot, owner, partitionHash(topic, partition), attempt, suppressed);
    }

    /** Route for a consumer group on retry number {@code attempt}. */
    public Target group(RoutingSnapshot snapshot, String group, int attempt) {
        Ownership owner = snapshot.groupOwner(group);
        int suppressed = owner == null ? routes.suppressedGroupOwner(group) : RoutingTable.NONE_SUPPRESSED;
        return route(snapshot, owner, groupHash(group), attempt, suppressed);
    }

    /** The hash that spreads an unowned partition; the same in every proxy (String.hashCode is specified). */
    public static int partitionHash(String topic, int partition) {
        return 31 * topic.hashCode() + partition;
    }

    /** The hash that spreads an unowned group; the same in every proxy. */
    public static int groupHash(String group) {
        return Objects.hashCode(group);
    }

    /**
     * The fallback choice for {@code hash} on retry {@code attempt} among {@code sortedById}, a
     * non-empty list sorted by broker id: what every proxy picks for something nobody owns.
     */
    public static <T> T fallback(List<T> sortedById, int hash, int attempt) {
        return sortedById.get(Math.floorMod(hash + attempt, sortedById.size()));
    }

    /**
     * For a read whose route went to a broker that did not answer: another live broker (any
     * broker serves reads), chosen by {@code attempt} so retries spread; {@code planned} itself
     * if every live broker failed to answer.
     */
    public Target readReplica(RoutingSnapshot snapshot, Target planned, Set<BrokerAddress> unanswered, int attempt) {
        List<BrokerAddress> others = liveBrokers(snapshot).stream().filter(b -> !unanswered.contains(b)).toList();
        if (others.isEmpty()) {
            return planned;
        }
        return new Target(others.get(Math.floorMod(attempt, others.size())), null);
    }

    /**
     * The owner's broker, or a fallback: the live brokers in an order every proxy computes alike
     * (rotated by {@code hash}), except that an owner whose route was dropped after it rejected
     * ({@code suppressed}) comes last, so a retry still reaches it if no other broker will do.
     */
    private Target route(RoutingSnapshot snapshot, Ownership owner, int hash, int attempt, int suppressed) {
        if (owner != null) {
            BrokerAddress address = snapshot.broker(owner.brokerId());
            if (address != null) {
                return new Target(address, owner);
            }
        }
        List<BrokerAddress> live = liveBrokers(snapshot);
        if (live.isEmpty()) {
            return null;
        }
        BrokerAddress rejecter = null;
        List<BrokerAddress> others = new ArrayList<>(live.size());
        for (BrokerAddress broker : live) {
            if (broker.id() == suppressed) {
                rejecter = broker;
            } else {
                others.add(broker);
            }
        }
        if (rejecter == null || others.isEmpty()) {
            return new Target(fallback(live, hash, attempt), null);
        }
        int position = Math.floorMod(attempt, live.size());
        return new Target(position == others.size() ? rejecter : others.get(Math.floorMod(hash + position,
                others.size())), null);
    }

    /** Live brokers sorted by id, or the bootstrap list while etcd knows none. */
    public List<BrokerAddress> liveBrokers(RoutingSnapshot snapshot) {
        List<BrokerAddress> live = new ArrayList<>(snapshot.brokers());
        if (live.isEmpty()) {
            return bootstrap;
        }
        live.sort(Comparator.comparingInt(BrokerAddress::id));
        return live;
    }

    /**
     * Every live broker, starting at a position derived from {@code seed}: spreads "any broker"
     * requests across brokers while keeping the rest of the list for failover.
     */
    public List<BrokerAddress> anyBrokerOrder(int seed) {
        List<BrokerAddress> live = liveBrokers(snapshot());
        int n = live.size();
        List<BrokerAddress> ordered = new ArrayList<>(n);
        int start = n == 0 ? 0 : Math.floorMod(seed, n);
        for (int i = 0; i < n; i++) {
            ordered.add(live.get((start + i) % n));
        }
        return ordered;
    }
}
