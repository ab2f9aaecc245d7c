package io.leasehold.proxy.exchange;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Items (partitions, or their results) gathered under the request topic they belong to, topics in
 * the order first seen. Topics are told apart by identity, not {@code equals}: a generated topic
 * element's {@code hashCode} walks its whole partition list, so looking one up once per partition
 * would cost partitions squared for a topic with many.
 *
 * @param <T> request topic element
 * @param <X> what is gathered per topic
 */
final class TopicGrouping<T, X> {
    private final Map<T, List<X>> byTopic = new IdentityHashMap<>();
    private final List<T> order = new ArrayList<>();

    void add(T topic, X item) {
        List<X> items = byTopic.get(topic);
        if (items == null) {
            items = new ArrayList<>();
            byTopic.put(topic, items);
            order.add(topic);
        }
        items.add(item);
    }

    /**
     * The grouping in the form {@link PartitionedApi} takes it. Each topic is hashed once here, a
     * walk of the client's partitions of it: a request split over n owners costs n such walks.
     */
    LinkedHashMap<T, List<X>> toMap() {
        LinkedHashMap<T, List<X>> map = new LinkedHashMap<>();
        for (T topic : order) {
            map.put(topic, byTopic.get(topic));
        }
        return map;
    }
}
