package io.leasehold.proxy.exchange;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.exchange.PartitionedExchange.Entry;
import io.leasehold.proxy.exchange.PartitionedExchange.Key;
import io.leasehold.proxy.exchange.PartitionedExchange.Routed;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.versions.VersionBridge;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.buffer.ByteBufAllocator;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One merged read's part in its connection's reads ahead ({@link ReadAheads}): which reads ahead
 * may answer its partitions now, which owner answered each partition with data, and, once its
 * answer has gone, the reads ahead of the positions the client asks next.
 */
final class ExchangeReadAheads<Q extends ApiMessage, R extends ApiMessage, T, E, P> {
    private final PartitionedApi<Q, R, T, E, P> api;
    private final ReadsAhead<Q, E, P> reads;
    private final MergedRead<Q, P> merged;
    private final ReadAheads connection;
    private final Q request;
    private final RequestFrame frame;
    /** The version read ahead sub-requests are sent in, and part of what a read ahead serves. */
    private final short backendVersion;
    private final ByteBufAllocator alloc;
    private final ProxyMetrics metrics;
    /** Which broker answered each partition with data the client gets, and by which route. */
    private final Map<Key, Answered<T, E>> answeredBy = new ConcurrentHashMap<>();

    private record Answered<T, E>(BrokerAddress broker, Routed<T, E> routed) {
    }

    ExchangeReadAheads(PartitionedApi<Q, R, T, E, P> api, ReadsAhead<Q, E, P> reads, MergedRead<Q, P> merged,
                       ReadAheads connection, Q request, RequestFrame frame, short backendVersion,
                       ByteBufAllocator alloc, ProxyMetrics metrics) {
        this.api = api;
        this.reads = reads;
        this.merged = merged;
        this.connection = connection;
        this.request = request;
        this.frame = frame;
        this.backendVersion = backendVersion;
        this.alloc = alloc;
        this.metrics = metrics;
    }

    /**
     * Takes (so each is used once) the connection's reads ahead that were read at exactly the
     * positions, routes and form {@code routed} asks now.
     */
    List<ReadAheads.Claim> take(List<Routed<T, E>> routed) {
        Map<Key, ReadAheads.Wanted> wanted = new HashMap<>();
        for (Routed<T, E> r : routed) {
            wanted.put(r.entry().key(), new ReadAheads.Wanted(reads.position(r.entry().partition()), r.ownership()));
        }
        return connection.take(wanted, form());
    }

    /** {@code broker} answered {@code routed}'s partition with data the client gets. */
    void answered(BrokerAddress broker, Routed<T, E> routed) {
        answeredBy.put(routed.entry().key(), new Answered<>(broker, routed));
    }

    /** True if the connection has room for more reads ahead. */
    boolean haveRoom() {
        return connection.haveRoom();
    }

    /**
     * After {@code response} (the merged answer): asks each owner that returned data for the
     * positions the client will ask next, in a read ahead of the partitions it answered.
     */
    void startAfter(R response) {
        Map<BrokerAddress, TopicGrouping<T, E>> partitions = new LinkedHashMap<>();
        Map<BrokerAddress, Map<Key, ReadAheads.Wanted>> wanted = new HashMap<>();
        api.forEachResult(response, (name, id, partition, result) -> {
            Key key = new Key(name, id, partition);
            Answered<T, E> answered = answeredBy.get(key);
            long next = answered == null ? -1 : reads.nextPosition(result);
            if (next < 0) {
                return;
            }
            Entry<T, E> entry = answered.routed().entry();
            partitions.computeIfAbsent(answered.broker(), b -> new TopicGrouping<>())
                    .add(entry.topic(), reads.atPosition(entry.partition(), next));
            wanted.computeIfAbsent(answered.broker(), b -> new HashMap<>())
                    .put(key, new ReadAheads.Wanted(next, answered.routed().ownership()));
        });
        int total = answeredBy.size();
        partitions.forEach((broker, parts) -> {
            Map<Key, ReadAheads.Wanted> owned = wanted.get(broker);
            Q sub = api.subRequest(request, parts.toMap());
            merged.share(sub, owned.size(), Math.max(total, owned.size()), Duration.ZERO);
            reads.readingAhead(sub);
            connection.start(broker, owned, form(), VersionBridge.encodeRequest(alloc, frame, backendVersion, sub));
            metrics.readAheadStarted();
        });
    }

    /** What reads ahead started or taken by this read are asked in besides their positions. */
    private ReadAheads.Form form() {
        return new ReadAheads.Form(backendVersion, reads.readAheadKind(request));
    }
}
