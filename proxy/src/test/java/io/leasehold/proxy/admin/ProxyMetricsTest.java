package io.leasehold.proxy.admin;

import io.leasehold.proxy.BuildInfo;
import io.leasehold.proxy.audit.AuditMetrics;
import io.leasehold.proxy.request.MemoryBudget;

import io.leasehold.proxy.security.AuthenticationMetrics;
import io.leasehold.proxy.security.JwksMetrics;
import io.leasehold.proxy.tls.CertificateExpiryMetrics;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

class ProxyMetricsTest {

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ProxyMetrics metrics = new ProxyMetrics(registry);

    @AfterEach
    void closeMetrics() {
        metrics.close();
    }

    @Test
    void requestsAreCountedAndTimedPerApiKeyAndOutcome() {
        metrics.requestCompleted(ApiKeys.PRODUCE, Duration.ofMillis(3).toNanos(), false);
        metrics.requestCompleted(ApiKeys.PRODUCE, Duration.ofMillis(5).toNanos(), false);
        metrics.requestCompleted(ApiKeys.PRODUCE, Duration.ofMillis(7).toNanos(), true);
        metrics.requestCompleted(ApiKeys.FETCH, Duration.ofMillis(500).toNanos(), false);

        String scrape = registry.scrape();

        assertThat(scrape)
                .contains("leasehold_requests_seconds_count{api=\"Produce\",outcome=\"ok\"} 2")
                .contains("leasehold_requests_seconds_count{api=\"Produce\",outcome=\"error\"} 1")
                .contains("leasehold_requests_seconds_count{api=\"Fetch\",outcome=\"ok\"} 1")
                .containsPattern("leasehold_requests_seconds_bucket\\{api=\"Fetch\",outcome=\"ok\",le=\"[0-9.]+\"} 1");
        assertThat(registry.get("leasehold.requests").tag("api", "Produce").tag("outcome", "ok").timer()
                .totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isEqualTo(8.0);
    }

    @Test
    void bytesInAndOutAreCountedPerApiWithTheirSizePrefix() {
        metrics.requestTransferred(ApiKeys.PRODUCE, 1000, 60);
        metrics.requestTransferred(ApiKeys.PRODUCE, 2000, 0);
        metrics.requestTransferred(ApiKeys.FETCH, 100, 5000);

        assertThat(registry.scrape())
                .contains("leasehold_client_request_bytes_total{api=\"Produce\"} 3008.0")
                .contains("leasehold_client_response_bytes_total{api=\"Produce\"} 64.0")
                .contains("leasehold_client_request_bytes_total{api=\"Fetch\"} 104.0")
                .contains("leasehold_client_response_bytes_total{api=\"Fetch\"} 5004.0");
    }

    @Test
    void brokerAnswersAreTimedPerBrokerAndApiInAFewFixedBuckets() {
        metrics.brokerAnswered(1, ApiKeys.PRODUCE, Duration.ofMillis(3).toNanos());
        metrics.brokerAnswered(1, ApiKeys.PRODUCE, Duration.ofMillis(300).toNanos());
        metrics.brokerAnswered(2, ApiKeys.FETCH, Duration.ofMillis(40).toNanos());

        String scrape = registry.scrape();

        assertThat(scrape)
                .contains("leasehold_backend_request_latency_seconds_count{api=\"Produce\",broker=\"1\"} 2")
                .contains("leasehold_backend_request_latency_seconds_bucket{api=\"Produce\",broker=\"1\",le=\"0.005\"} 1")
                .contains("leasehold_backend_request_latency_seconds_bucket{api=\"Produce\",broker=\"1\",le=\"0.5\"} 2")
                .contains("leasehold_backend_request_latency_seconds_bucket{api=\"Fetch\",broker=\"2\",le=\"0.05\"} 1");
        assertThat(scrape.lines().filter(line -> line.startsWith("leasehold_backend_request_latency_seconds_bucket{api=\"Fetch\"")))
                .as("14 bounds and +Inf").hasSize(15);
    }

    @Test
    void memoryBudgetUsedAndLimitAreSeparateSeries() {
        MemoryBudget budget = new MemoryBudget(1 << 20);
        metrics.bindMemoryBudget(budget);
        budget.charge(4096);

        assertThat(registry.scrape())
                .contains("leasehold_memory_budget_used_bytes 4096.0")
                .contains("leasehold_memory_budget_limit_bytes 1048576.0")
                .doesNotContain("leasehold_memory_budget_bytes");
    }

    @Test
    void retriesRejectionsAndRefusalsAreCounted() {
        metrics.retried(ApiKeys.PRODUCE);
        metrics.retried(ApiKeys.PRODUCE);
        metrics.notLeaderRejection();
        metrics.notCoordinatorRejection();
        metrics.notCoordinatorRejection();
        metrics.frameRejected("oversized");
        metrics.frameRejected("malformed");
        metrics.frameRejected("oversized");
        metrics.connectionRefused("max_connections");
        metrics.idleConnectionClosed();
        metrics.tlsHandshakeFailed("not_tls");
        metrics.tlsHandshakeFailed("rejected");
        metrics.tlsHandshakeFailed("not_tls");

        String scrape = registry.scrape();

        assertThat(scrape)
                .contains("leasehold_requests_retries_total{api=\"Produce\"} 2.0")
                .contains("leasehold_backend_rejections_total{error=\"not_leader_or_follower\"} 1.0")
                .contains("leasehold_backend_rejections_total{error=\"not_coordinator\"} 2.0")
                .contains("leasehold_frames_rejected_total{reason=\"oversized\"} 2.0")
                .contains("leasehold_frames_rejected_total{reason=\"malformed\"} 1.0")
                .contains("leasehold_client_connections_refused_total{reason=\"max_connections\"} 1.0")
                .contains("leasehold_client_connections_idle_closed_total 1.0")
                .contains("leasehold_client_tls_handshake_failures_total{reason=\"not_tls\"} 2.0")
                .contains("leasehold_client_tls_handshake_failures_total{reason=\"rejected\"} 1.0");
    }

    @Test
    void connectionGaugesFollowOpensAndCloses() {
        metrics.clientConnectionOpened();
        metrics.clientConnectionOpened();
        metrics.clientConnectionClosed();
        metrics.backendConnectionOpened();

        assertThat(registry.get("leasehold.client.connections").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("leasehold.client.connections.accepted").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("leasehold.backend.connections").gauge().value()).isEqualTo(1.0);

        metrics.backendConnectionClosed();
        assertThat(registry.get("leasehold.backend.connections").gauge().value()).isZero();
    }

    @Test
    void countsProducePartitionsAnsweredWithoutTheirOwnerByReason() {
        metrics.produceAnsweredWithoutOwner("deadline", 3);
        metrics.produceAnsweredWithoutOwner("silent", 2);
        metrics.produceAnsweredWithoutOwner("silent", 1);

        assertThat(registry.get("leasehold.produce.partitions.without.owner").tag("reason", "deadline").counter().count())
                .isEqualTo(3.0);
        assertThat(registry.get("leasehold.produce.partitions.without.owner").tag("reason", "silent").counter().count())
                .isEqualTo(3.0);
    }

    @Test
    void publishesJvmAndNettyBufferMemory() {
        assertThat(registry.scrape())
                .contains("leasehold_netty_direct_memory_used_bytes{pool=\"default\"} ")
                .contains("jvm_memory_used_bytes{")
                .contains("process_cpu_usage ");
    }

    @Test
    void directMemoryOfTheBrokerReadPoolIsPublishedBesideTheDefaultAllocators() {
        PooledByteBufAllocator pool = new PooledByteBufAllocator(true);
        metrics.bindBrokerReadBuffers(pool);
        ByteBuf held = pool.directBuffer(1024);
        try {
            assertThat(registry.get("leasehold.netty.direct.memory.used").tag("pool", "broker_reads").gauge().value())
                    .as("the pool's chunk holding the buffer").isGreaterThanOrEqualTo(1024);
        } finally {
            held.release();
        }
    }

    @Test
    void operationsGuideDocumentsExactlyTheProxyMetrics() throws Exception {
        metrics.bindRoutingTable(new FixedRoutingTable());
        metrics.bindMemoryBudget(new MemoryBudget(1 << 20));
        metrics.bindRoutingMode(new RoutingMode(new FixedRoutingTable()));
        metrics.requestCompleted(ApiKeys.PRODUCE, 1_000, false);
        metrics.requestTransferred(ApiKeys.PRODUCE, 100, 10);
        metrics.brokerAnswered(0, ApiKeys.PRODUCE, 1_000);
        metrics.retried(ApiKeys.PRODUCE);
        metrics.frameRejected("oversized");
        metrics.connectionRefused("max_connections");
        metrics.tlsHandshakeFailed("not_tls");
        new AuthenticationMetrics(registry).succeeded("PLAIN");
        new AuditMetrics(registry);
        new JwksMetrics(registry).refreshed("url", true);
        metrics.connectionTimedOut("first_request");
        metrics.backendRequestFailed(ApiKeys.PRODUCE, "timeout");
        metrics.produceAnsweredWithoutOwner("silent", 2);
        metrics.retriesGivenUp(ApiKeys.PRODUCE, "budget", 1);
        metrics.listenerConnectionAccepted("node-3");
        metrics.bindBrokersWithoutNode(new FixedRoutingTable(), id -> true);
        new CertificateExpiryMetrics(registry).track(() -> Map.of("listener", Instant.ofEpochSecond(1)));
        new BuildInfo("1.0", "abc").bindTo(registry);
        Set<String> published = metricNames(registry.scrape().lines()
                .filter(line -> !line.startsWith("#")).map(line -> line.split("[{ ]")[0]));
        String guide = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/operations.md"));
        Set<String> documented = metricNames(Pattern.compile("leasehold_[a-z_]+").matcher(guide).results()
                .map(MatchResult::group));

        assertThat(documented).isEqualTo(published);
    }

    /** Base metric names: histogram and counter series suffixes folded into their metric. */
    private static Set<String> metricNames(Stream<String> names) {
        return names.filter(name -> name.startsWith("leasehold_"))
                .map(name -> name.replaceFirst("_(bucket|count|sum|max)$", ""))
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void brokersWithoutANodeAreCountedFromTheCurrentSnapshotAtScrapeTime() {
        FixedRoutingTable routes = new FixedRoutingTable();
        metrics.bindBrokersWithoutNode(routes, id -> id >= 0 && id < 3);
        assertThat(registry.get("leasehold.presentation.brokers.without.node").gauge().value()).isZero();

        routes.loaded(RoutingSnapshot.builder().broker(new BrokerAddress(1, "b1", 9092, null))
                .broker(new BrokerAddress(7, "b7", 9092, null)).broker(new BrokerAddress(9, "b9", 9092, null)).build());

        assertThat(registry.get("leasehold.presentation.brokers.without.node").gauge().value()).isEqualTo(2);
    }

    @Test
    void connectionsAreCountedByThePortTheyArrivedOn() {
        metrics.listenerConnectionAccepted("bootstrap");
        metrics.listenerConnectionAccepted("node-2");
        metrics.listenerConnectionAccepted("node-2");

        assertThat(registry.scrape())
                .contains("leasehold_listener_connections_accepted_total{listener=\"bootstrap\"} 1.0")
                .contains("leasehold_listener_connections_accepted_total{listener=\"node-2\"} 2.0");
    }

    @Test
    void routingGaugesReadTheCurrentSnapshotAtScrapeTime() {
        FixedRoutingTable routes = new FixedRoutingTable();
        metrics.bindRoutingTable(routes);
        assertThat(registry.get("leasehold.routing.snapshot.loaded").gauge().value()).isZero();

        routes.loaded(RoutingSnapshot.builder()
                .broker(new BrokerAddress(1, "127.0.0.1", 19092, null))
                .partition("orders", 0, new Ownership(1, 10))
                .partition("orders", 1, new Ownership(1, 11))
                .group("billing", new Ownership(1, 12))
                .revision(42)
                .build()).stale(Duration.ofMillis(1500)).rejectedMetadataSnapshots(3);

        assertThat(registry.get("leasehold.routing.snapshot.loaded").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("leasehold.routing.snapshot.partitions").gauge().value()).isEqualTo(2.0);
        assertThat(registry.get("leasehold.routing.snapshot.groups").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("leasehold.routing.snapshot.brokers").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("leasehold.routing.snapshot.revision").gauge().value()).isEqualTo(42.0);
        assertThat(registry.scrape()).contains("leasehold_routing_snapshot_staleness_seconds 1.5")
                .contains("leasehold_routing_metadata_snapshot_rejected_total 3.0");
    }

    @Test
    void routingModeSaysBootstrapWhileServingWithoutTheSnapshotAndEtcdOnceItLoads() {
        FixedRoutingTable routes = new FixedRoutingTable();
        RoutingMode mode = new RoutingMode(routes);
        metrics.bindRoutingMode(mode);
        assertThat(registry.scrape()).contains("leasehold_routing_mode{mode=\"bootstrap\"} 0.0")
                .contains("leasehold_routing_mode{mode=\"etcd\"} 0.0");

        mode.serveWithoutSnapshot();
        assertThat(registry.scrape()).contains("leasehold_routing_mode{mode=\"bootstrap\"} 1.0")
                .contains("leasehold_routing_mode{mode=\"etcd\"} 0.0");

        routes.loaded(RoutingSnapshot.empty());
        assertThat(registry.scrape()).contains("leasehold_routing_mode{mode=\"bootstrap\"} 0.0")
                .contains("leasehold_routing_mode{mode=\"etcd\"} 1.0");
    }
}
