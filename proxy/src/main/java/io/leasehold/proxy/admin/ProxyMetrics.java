package io.leasehold.proxy.admin;

import io.leasehold.proxy.request.MemoryBudget;
import io.leasehold.routing.watch.RoutingTable;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBufAllocator;
import org.apache.kafka.common.protocol.ApiKeys;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.stream.Stream;

/**
 * The proxy's metrics, named {@code leasehold_*} in Prometheus. Request timers are published as
 * histograms per API key and outcome; meters for one API key are created on first use and cached,
 * so the request path does one map lookup and no registry search.
 */
public final class ProxyMetrics implements AutoCloseable {

    private static final Duration MIN_EXPECTED_LATENCY = Duration.ofMillis(1);
    private static final Duration MAX_EXPECTED_LATENCY = Duration.ofSeconds(60);
    /**
     * Bucket bounds of the per-broker latency histogram: a fixed, short list, because it has one
     * series per broker and API (the client histogram's default buckets would be about 70 each).
     */
    private static final Duration[] BROKER_LATENCY_BUCKETS = Stream.of(1, 2, 5, 10, 25, 50, 100, 250, 500,
            1_000, 2_500, 5_000, 10_000, 30_000).map(Duration::ofMillis).toArray(Duration[]::new);
    /** Every frame on the wire carries a 4-byte size before the bytes the proxy handles. */
    private static final int FRAME_SIZE_PREFIX = 4;
    /** One description for both outcomes: a meter name has one description in Prometheus. */
    private static final String READ_AHEADS_DESCRIPTION = "Single-node Fetch reads ahead, by outcome: started"
            + " (one owner asked after an answer) or partition_used (a partition of a client's Fetch answered from one)";

    private final MeterRegistry registry;
    private final Map<ApiKeys, Timer> succeeded = new ConcurrentHashMap<>();
    private final Map<ApiKeys, Timer> failed = new ConcurrentHashMap<>();
    private final Map<ApiKeys, Counter> retries = new ConcurrentHashMap<>();
    private final Map<ApiKeys, Counter> requestBytes = new ConcurrentHashMap<>();
    private final Map<ApiKeys, Counter> responseBytes = new ConcurrentHashMap<>();
    private final Map<String, Timer> brokerLatencies = new ConcurrentHashMap<>();
    private final Map<String, Counter> framesRejected = new ConcurrentHashMap<>();
    private final Map<String, Counter> connectionsRefused = new ConcurrentHashMap<>();
    private final Map<String, Counter> tlsHandshakeFailures = new ConcurrentHashMap<>();
    private final Map<String, Counter> connectionsTimedOut = new ConcurrentHashMap<>();
    private final Map<String, Counter> backendFailures = new ConcurrentHashMap<>();
    private final Map<String, Counter> listenerConnections = new ConcurrentHashMap<>();
    private final Map<String, Counter> partitionsWithoutOwner = new ConcurrentHashMap<>();
    private final Map<String, Counter> retriesGivenUp = new ConcurrentHashMap<>();
    private final Counter requestsQueued;
    private final Counter requestsThrottled;
    private final Counter dnsLookupFailures;
    private final Counter connectionMutes;
    private final Counter drainTimeouts;
    private final Counter notLeaderRejections;
    private final Counter notCoordinatorRejections;
    private final Counter idleConnectionsClosed;
    private final Counter clientConnectionsAccepted;
    private final Counter backendConnectionsOpened;
    private final Counter backendAuthenticationFailures;
    private final Counter readAheadsStarted;
    private final Counter readAheadsUsed;
    private final AtomicInteger clientConnections = new AtomicInteger();
    private final AtomicInteger backendConnections = new AtomicInteger();
    private final RuntimeMetrics runtime;

    /** Registers the proxy's meters, plus JVM metrics and Netty's default allocator memory. */
    public ProxyMetrics(MeterRegistry registry) {
        this.registry = registry;
        this.runtime = new RuntimeMetrics(registry, ByteBufAllocator.DEFAULT);
        this.notLeaderRejections = rejection("not_leader_or_follower");
        this.notCoordinatorRejections = rejection("not_coordinator");
        this.idleConnectionsClosed = Counter.builder("leasehold.client.connections.idle.closed")
                .description("Client connections closed because they were idle longer than limits.idleTimeout")
                .register(registry);
        this.readAheadsStarted = Counter.builder("leasehold.fetch.read.aheads")
                .description(READ_AHEADS_DESCRIPTION)
                .tag("outcome", "started").register(registry);
        this.readAheadsUsed = Counter.builder("leasehold.fetch.read.aheads")
                .description(READ_AHEADS_DESCRIPTION)
                .tag("outcome", "partition_used").register(registry);
        this.clientConnectionsAccepted = Counter.builder("leasehold.client.connections.accepted")
                .description("Client connections accepted since start")
                .register(registry);
        this.backendConnectionsOpened = Counter.builder("leasehold.backend.connections.opened")
                .description("Connections opened to backend brokers since start")
                .register(registry);
        this.backendAuthenticationFailures = Counter.builder("leasehold.backend.authentication.failures")
                .description("New broker connections whose SASL login (backends.sasl) the broker refused or broke off")
                .register(registry);
        this.requestsQueued = Counter.builder("leasehold.requests.queued")
                .description("Client requests held back because their connection had limits.maxInFlightPerConnection "
                        + "requests in progress; each is processed when one of those finishes")
                .register(registry);
        this.dnsLookupFailures = Counter.builder("leasehold.backend.dns.failures")
                .description("Broker host names that did not resolve (the name servers failed, timed out or know no "
                        + "such name)")
                .register(registry);
        this.requestsThrottled = Counter.builder("leasehold.requests.throttled")
                .description("Client requests held back because their connection had used its "
                        + "limits.requestsPerSecondPerConnection")
                .register(registry);
        this.connectionMutes = Counter.builder("leasehold.client.connection.mutes")
                .description("Times a client connection stopped being read because it had used its "
                        + "limits.requestsPerSecondPerConnection")
                .register(registry);
        this.drainTimeouts = Counter.builder("leasehold.drain.timeouts")
                .description("Graceful drains that reached shutdown.drainTimeout with client connections still busy")
                .register(registry);
        Gauge.builder("leasehold.client.connections", clientConnections, AtomicInteger::get)
                .description("Open client connections").register(registry);
        Gauge.builder("leasehold.backend.connections", backendConnections, AtomicInteger::get)
                .description("Open connections to backend brokers").register(registry);
    }

    /**
     * Counts the direct memory of the pool broker connections read into in
     * {@code leasehold_netty_direct_memory_used_bytes{pool="broker_reads"}}, beside the default
     * allocator's series.
     */
    public void bindBrokerReadBuffers(ByteBufAllocator pool) {
        RuntimeMetrics.bindDirectMemory(registry, pool, "broker_reads");
    }

    /** One client request answered (or failed) after {@code durationNanos}. */
    public void requestCompleted(ApiKeys api, long durationNanos, boolean failedRequest) {
        Map<ApiKeys, Timer> timers = failedRequest ? failed : succeeded;
        timers.computeIfAbsent(api, key -> requestTimer(key, failedRequest ? "error" : "ok"))
                .record(durationNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * The bytes of one client request frame and of its answer ({@code responseBytes} 0 when none
     * is sent, as for an acks=0 Produce), each counted with its 4-byte size prefix as on the wire.
     */
    public void requestTransferred(ApiKeys api, long requestFrameBytes, long responseFrameBytes) {
        requestBytes.computeIfAbsent(api, key -> Counter.builder("leasehold.client.request")
                .description("Bytes of client request frames, by Kafka API")
                .baseUnit("bytes").tag("api", key.name).register(registry))
                .increment(FRAME_SIZE_PREFIX + requestFrameBytes);
        if (responseFrameBytes > 0) {
            responseBytes.computeIfAbsent(api, key -> Counter.builder("leasehold.client.response")
                    .description("Bytes of the answers sent to clients, by Kafka API")
                    .baseUnit("bytes").tag("api", key.name).register(registry))
                    .increment(FRAME_SIZE_PREFIX + responseFrameBytes);
        }
    }

    /**
     * A broker answered a request of {@code api} {@code nanos} after it was written (first bytes
     * for a streamed answer); {@code brokerId} -1 is a bootstrap address of unknown id.
     */
    public void brokerAnswered(int brokerId, ApiKeys api, long nanos) {
        brokerLatencies.computeIfAbsent(brokerId + "/" + api.name, key -> Timer.builder("leasehold.backend.request.latency")
                .description("Time from a request written to a broker to its answer, by broker id and Kafka API")
                .tag("broker", Integer.toString(brokerId))
                .tag("api", api.name)
                .serviceLevelObjectives(BROKER_LATENCY_BUCKETS)
                .register(registry)).record(nanos, TimeUnit.NANOSECONDS);
    }

    /** One partition batch (or group request) sent again after a rejection or connect failure. */
    public void retried(ApiKeys api) {
        retries.computeIfAbsent(api, key -> Counter.builder("leasehold.requests.retries")
                .description("Partition batches or group requests retried on another or the same broker")
                .tag("api", key.name)
                .register(registry)).increment();
    }

    /**
     * Partitions the proxy stopped retrying, so the client got the rejection and retries itself. {@code reason}: "budget" (no time left in the request's retry budget),
     * "unreachable" (its broker could not be reached on several attempts) or "client_gone".
     */
    public void retriesGivenUp(ApiKeys api, String reason, int partitions) {
        retriesGivenUp.computeIfAbsent(api.name + "/" + reason, key -> Counter.builder("leasehold.requests.retries.given.up")
                .description("Partitions answered with a rejection because the proxy stopped retrying them, "
                        + "by API and reason")
                .tag("api", api.name)
                .tag("reason", reason)
                .register(registry)).increment(partitions);
    }

    /** A backend answered NOT_LEADER_OR_FOLLOWER: the proxy's route was stale. */
    public void notLeaderRejection() {
        notLeaderRejections.increment();
    }

    /** A backend answered NOT_COORDINATOR: the proxy's group route was stale. */
    public void notCoordinatorRejection() {
        notCoordinatorRejections.increment();
    }

    public void clientConnectionOpened() {
        clientConnections.incrementAndGet();
        clientConnectionsAccepted.increment();
    }

    /**
     * A client connection accepted on one of the proxy's Kafka ports: {@code listener} is
     * "bootstrap" or, in the node-per-owner presentation, "node-ID" for the port of node ID.
     */
    public void listenerConnectionAccepted(String listener) {
        increment(listenerConnections, "leasehold.listener.connections.accepted",
                "Client connections accepted, by the port they arrived on (bootstrap or a node's port)",
                "listener", listener);
    }

    /**
     * Publishes, read at scrape time, how many live brokers have no node of their own in the
     * node-per-owner presentation ({@code hasNode} is false for their id).
     */
    public void bindBrokersWithoutNode(RoutingTable table, IntPredicate hasNode) {
        Gauge.builder("leasehold.presentation.brokers.without.node", table,
                        t -> t.snapshot().brokers().stream().filter(b -> !hasNode.test(b.id())).count())
                .description("Live brokers whose id is outside the presentation's node range; their partitions are "
                        + "shown on other nodes")
                .strongReference(true).register(registry);
    }

    public void clientConnectionClosed() {
        clientConnections.decrementAndGet();
    }

    public void backendConnectionOpened() {
        backendConnections.incrementAndGet();
        backendConnectionsOpened.increment();
    }

    /** A broker refused the proxy's SASL login on a new connection. */
    public void backendAuthenticationFailed() {
        backendAuthenticationFailures.increment();
    }

    public void backendConnectionClosed() {
        backendConnections.decrementAndGet();
    }

    /** A client frame refused; {@code reason} is one of a small fixed set, e.g. "oversized", "malformed". */
    public void frameRejected(String reason) {
        increment(framesRejected, "leasehold.frames.rejected",
                "Client frames refused as invalid, by reason",
                "reason", reason);
    }

    /** A client connection refused at accept time, e.g. "max_connections". */
    public void connectionRefused(String reason) {
        increment(connectionsRefused, "leasehold.client.connections.refused",
                "Client connections refused, by reason",
                "reason", reason);
    }

    /**
     * A client connection closed because its TLS handshake failed; {@code reason} is one of
     * "not_tls" (a plaintext client), "rejected" (certificates or protocol), "timeout", "closed"
     * (the client went away mid-handshake).
     */
    public void tlsHandshakeFailed(String reason) {
        increment(tlsHandshakeFailures, "leasehold.client.tls.handshake.failures",
                "Client connections closed because the TLS handshake failed, by reason",
                "reason", reason);
    }

    public void idleConnectionClosed() {
        idleConnectionsClosed.increment();
    }

    /**
     * A client connection closed because it missed a deadline: "first_request" (no complete
     * request within limits.firstRequestTimeout) or "frame_completion" (a frame not completed
     * within limits.frameCompletionTimeout).
     */
    public void connectionTimedOut(String reason) {
        increment(connectionsTimedOut, "leasehold.client.connections.timed.out",
                "Client connections closed for missing a deadline, by reason",
                "reason", reason);
    }

    /** A read ahead of one owner was sent after a Fetch answer (single-node presentation). */
    public void readAheadStarted() {
        readAheadsStarted.increment();
    }

    /** A partition of a client's Fetch was answered from a read ahead. */
    public void readAheadUsed() {
        readAheadsUsed.increment();
    }

    /**
     * A request to a broker got no response; the client is answered with an error code inside a
     * normal response (so the request itself counts as "ok"). {@code reason}: "unreachable",
     * "timeout", "disconnected" or "other".
     */
    public void backendRequestFailed(ApiKeys api, String reason) {
        backendFailures.computeIfAbsent(api.name + "/" + reason, key ->
                Counter.builder("leasehold.backend.request.failures")
                        .description("Requests to brokers that got no response, answered to the client with an error "
                                + "code, by API and reason")
                        .tag("api", api.name)
                        .tag("reason", reason)
                        .register(registry)).increment();
    }

    /**
     * Produce partitions answered without their owner in the single-node presentation, so the
     * other owners' partitions of the request did not wait for it. {@code reason}: "deadline"
     * (the owner left them unanswered past {@code presentation.produceOwnerDeadline}: answered
     * REQUEST_TIMED_OUT) or "silent" (the owner was known silent: answered NOT_LEADER_OR_FOLLOWER
     * without being sent).
     */
    public void produceAnsweredWithoutOwner(String reason, int partitions) {
        partitionsWithoutOwner.computeIfAbsent(reason, key -> Counter.builder("leasehold.produce.partitions.without.owner")
                .description("Produce partitions answered without their owner (single-node presentation), by reason: "
                        + "deadline (unanswered past presentation.produceOwnerDeadline) or silent (owner known silent, "
                        + "not sent)")
                .tag("reason", key)
                .register(registry)).increment(partitions);
    }

    /** A client request held back until its connection has fewer than its in-flight limit in progress. */
    public void requestQueued() {
        requestsQueued.increment();
    }

    /** A broker host name did not resolve. */
    public void backendDnsLookupFailed() {
        dnsLookupFailures.increment();
    }

    /** A client request waits because its connection used up its request rate. */
    public void requestThrottled() {
        requestsThrottled.increment();
    }

    /** A client connection is muted (not read) until its request rate allows the next request. */
    public void connectionMuted() {
        connectionMutes.increment();
    }

    /** A graceful drain ran out of time with client connections still busy. */
    public void drainTimedOut() {
        drainTimeouts.increment();
    }

    /**
     * Publishes the memory budget as two series, {@code leasehold_memory_budget_used_bytes} and
     * {@code leasehold_memory_budget_limit_bytes} (so {@code sum} of used is not mixed with limits),
     * and how often it paused client reading.
     */
    public void bindMemoryBudget(MemoryBudget budget) {
        Gauge.builder("leasehold.memory.budget.used", budget, MemoryBudget::used)
                .description("Bytes of client requests and answers the proxy holds now")
                .baseUnit("bytes").strongReference(true).register(registry);
        Gauge.builder("leasehold.memory.budget.limit", budget, MemoryBudget::limit)
                .description("Bytes the proxy may hold before every client connection stops reading (limits.memoryBudget)")
                .baseUnit("bytes").strongReference(true).register(registry);
        FunctionCounter.builder("leasehold.memory.budget.pauses", budget, MemoryBudget::pauses)
                .description("Times the memory budget was used up and every client connection stopped reading")
                .register(registry);
    }

    /** Publishes the routing snapshot's staleness and size as gauges read at scrape time. */
    public void bindRoutingTable(RoutingTable table) {
        Gauge.builder("leasehold.routing.snapshot.staleness", table, t -> t.staleness().toNanos() / 1e9)
                .description("Seconds since the etcd watch stopped following live (0 while healthy)")
                .baseUnit("seconds").strongReference(true).register(registry);
        Gauge.builder("leasehold.routing.snapshot.loaded", table, t -> t.isLoaded() ? 1 : 0)
                .description("1 once the initial routing snapshot is loaded from etcd")
                .strongReference(true).register(registry);
        Gauge.builder("leasehold.routing.snapshot.revision", table, t -> t.snapshot().revision())
                .description("etcd revision the routing snapshot reflects")
                .strongReference(true).register(registry);
        Gauge.builder("leasehold.routing.snapshot.partitions", table, t -> t.snapshot().partitionCount())
                .description("Partitions with a known owner").strongReference(true).register(registry);
        Gauge.builder("leasehold.routing.snapshot.groups", table, t -> t.snapshot().groups().size())
                .description("Consumer groups with a known coordinator").strongReference(true).register(registry);
        Gauge.builder("leasehold.routing.snapshot.brokers", table, t -> t.snapshot().brokers().size())
                .description("Brokers known from etcd registrations and the metadata snapshot")
                .strongReference(true).register(registry);
        FunctionCounter.builder("leasehold.routing.metadata.snapshot.rejected", table, RoutingTable::rejectedMetadataSnapshots)
                .description("Revisions of P/metadata/snapshot that could not be read; the last good broker list was kept")
                .register(registry);
    }

    /**
     * Publishes where routes come from: {@code leasehold_routing_mode{mode="etcd"}} is 1 once the
     * routing snapshot has loaded, {@code mode="bootstrap"} while the proxy serves without it.
     */
    public void bindRoutingMode(RoutingMode mode) {
        for (RoutingMode.Mode each : List.of(RoutingMode.Mode.BOOTSTRAP, RoutingMode.Mode.ETCD)) {
            Gauge.builder("leasehold.routing.mode", mode, m -> m.current() == each ? 1 : 0)
                    .description("1 for the source routes come from now: the etcd snapshot, or the bootstrap "
                            + "brokers while serving without it (routing.startWithoutEtcd)")
                    .tag("mode", each.name().toLowerCase(Locale.ROOT))
                    .strongReference(true).register(registry);
        }
    }

    /** Releases the JVM GC notification listener. */
    @Override
    public void close() {
        runtime.close();
    }

    /** Increments the counter {@code name} tagged {@code tag=value}, registering it on first use. */
    private void increment(Map<String, Counter> counters, String name, String description, String tag, String value) {
        counters.computeIfAbsent(value, key -> Counter.builder(name).description(description).tag(tag, key)
                .register(registry)).increment();
    }

    private Counter rejection(String error) {
        return Counter.builder("leasehold.backend.rejections")
                .description("Backend responses rejecting a route (stale ownership view), by error")
                .tag("error", error)
                .register(registry);
    }

    private Timer requestTimer(ApiKeys api, String outcome) {
        return Timer.builder("leasehold.requests")
                .description("Client requests by Kafka API and outcome, from frame received to response written")
                .tag("api", api.name)
                .tag("outcome", outcome)
                .publishPercentileHistogram()
                .minimumExpectedValue(MIN_EXPECTED_LATENCY)
                .maximumExpectedValue(MAX_EXPECTED_LATENCY)
                .register(registry);
    }
}
