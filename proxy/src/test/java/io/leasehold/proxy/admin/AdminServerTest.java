package io.leasehold.proxy.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;
import io.leasehold.routing.snapshot.RoutingSnapshot;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AdminServerTest {

    private final FixedRoutingTable routes = new FixedRoutingTable();
    private final AtomicBoolean backendReachable = new AtomicBoolean(true);
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final HealthProbe health =
            new RoutingHealthProbe(routes, new RoutingMode(routes), Duration.ofSeconds(30), backendReachable::get,
                    () -> false, () -> true);
    private AdminServer server;

    @BeforeEach
    void startServer() throws InterruptedException {
        server = new AdminServer("127.0.0.1", 0, true, health, routes, registry);
        server.start();
    }

    @AfterEach
    void stopServer() {
        server.close();
    }

    @Test
    void healthzAnswersWhileTheProcessIsLive() throws Exception {
        HttpResponse<String> response = get("/healthz");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("live\n");
    }

    @Test
    void readyzIs503WithTheReasonUntilRoutesLoadAndABackendIsReachable() throws Exception {
        HttpResponse<String> beforeLoad = get("/readyz");
        assertThat(beforeLoad.statusCode()).isEqualTo(503);
        assertThat(beforeLoad.body()).isEqualTo("not ready: routing snapshot not loaded from etcd yet\n");

        routes.loaded(RoutingSnapshot.empty());
        backendReachable.set(false);
        HttpResponse<String> noBackend = get("/readyz");
        assertThat(noBackend.statusCode()).isEqualTo(503);
        assertThat(noBackend.body()).contains("no backend broker reachable");

        backendReachable.set(true);
        HttpResponse<String> ready = get("/readyz");
        assertThat(ready.statusCode()).isEqualTo(200);
        assertThat(ready.body()).isEqualTo("ready\n");
    }

    @Test
    void metricsServesPrometheusTextIncludingProxyMeters() throws Exception {
        HttpResponse<String> response;
        try (ProxyMetrics metrics = new ProxyMetrics(registry)) {
            metrics.bindRoutingTable(routes);
            metrics.requestCompleted(ApiKeys.PRODUCE, 2_000_000, false);
            metrics.notLeaderRejection();

            response = get("/metrics");
        }

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        assertThat(response.body())
                .contains("# TYPE leasehold_requests_seconds histogram")
                .contains("leasehold_requests_seconds_count{api=\"Produce\",outcome=\"ok\"} 1")
                .contains("leasehold_backend_rejections_total{error=\"not_leader_or_follower\"} 1.0")
                .contains("leasehold_routing_snapshot_loaded 0.0");
    }

    @Test
    void routesDumpsTheCurrentSnapshotAsJson() throws Exception {
        routes.loaded(RoutingSnapshot.builder()
                .broker(new BrokerAddress(2, "10.0.0.2", 19092, "zone-b"))
                .broker(new BrokerAddress(1, "10.0.0.1", 19092, null))
                .partition("orders", 1, new Ownership(2, 31))
                .partition("orders", 0, new Ownership(1, 30))
                .group("billing", new Ownership(2, 40))
                .revision(77)
                .build()).stale(Duration.ofMillis(1200));

        HttpResponse<String> response = get("/routes");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("content-type")).hasValue("application/json");
        JsonNode json = new ObjectMapper().readTree(response.body());
        assertThat(json.get("loaded").asBoolean()).isTrue();
        assertThat(json.get("revision").asLong()).isEqualTo(77);
        assertThat(json.get("stalenessMillis").asLong()).isEqualTo(1200);
        assertThat(json.get("partitionCount").asInt()).isEqualTo(2);
        assertThat(json.get("brokers")).hasSize(2);
        assertThat(json.get("brokers").get(0).get("id").asInt()).isEqualTo(1);
        assertThat(json.get("brokers").get(0).get("rack").isNull()).isTrue();
        assertThat(json.get("brokers").get(1).get("rack").asText()).isEqualTo("zone-b");
        assertThat(json.get("partitions").get(0).toString())
                .isEqualTo("{\"topic\":\"orders\",\"partition\":0,\"brokerId\":1,\"epoch\":30}");
        assertThat(json.get("partitions").get(1).get("brokerId").asInt()).isEqualTo(2);
        assertThat(json.get("groups").get(0).toString())
                .isEqualTo("{\"group\":\"billing\",\"brokerId\":2,\"epoch\":40}");
    }

    @Test
    void unknownPathsAndMethodsGetClearErrors() throws Exception {
        HttpResponse<String> unknown = get("/nope?x=1");
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.body()).contains("unknown path /nope");

        HttpResponse<String> post = http.send(HttpRequest.newBuilder(uri("/readyz"))
                .POST(HttpRequest.BodyPublishers.ofString("x")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(post.statusCode()).isEqualTo(405);
        assertThat(post.headers().firstValue("allow")).hasValue("GET, HEAD");
    }

    @Test
    void headAnswersWithHeadersOnly() throws Exception {
        HttpResponse<String> head = http.send(HttpRequest.newBuilder(uri("/healthz"))
                .method("HEAD", HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());

        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.headers().firstValue("content-length")).hasValue("5");
        assertThat(head.body()).isEmpty();
    }

    @Test
    void servesManyRequestsOverKeptAliveConnections() throws Exception {
        routes.loaded(RoutingSnapshot.empty());
        for (int i = 0; i < 20; i++) {
            assertThat(get(i % 2 == 0 ? "/readyz" : "/healthz").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void routesFollowsANewSnapshotRatherThanServingTheRenderingOfTheOldOne() throws Exception {
        routes.loaded(RoutingSnapshot.builder().partition("orders", 0, new Ownership(1, 30)).build());
        assertThat(routesJson().get("partitions").get(0).get("epoch").asInt()).isEqualTo(30);
        assertThat(routesJson().get("partitions").get(0).get("epoch").asInt()).isEqualTo(30);

        routes.loaded(RoutingSnapshot.builder().partition("orders", 0, new Ownership(2, 31)).build())
                .stale(Duration.ofMillis(700));
        JsonNode json = routesJson();

        assertThat(json.get("partitions").get(0).get("epoch").asInt()).isEqualTo(31);
        assertThat(json.get("stalenessMillis").asLong()).isEqualTo(700);
    }

    @Test
    void probesAnswerWhileAMetricsScrapeIsStuck() throws Exception {
        CountDownLatch scraping = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        registry.gauge("test_stuck_scrape", release, latch -> {
            scraping.countDown();
            awaitQuietly(latch);
            return 1;
        });
        try {
            var scrape = http.sendAsync(HttpRequest.newBuilder(uri("/metrics")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(scraping.await(10, TimeUnit.SECONDS)).isTrue();

            assertThat(get("/healthz", Duration.ofSeconds(5)).statusCode()).isEqualTo(200);
            assertThat(get("/readyz", Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
            assertThat(scrape).isNotDone();

            release.countDown();
            assertThat(scrape.get(10, TimeUnit.SECONDS).body()).contains("test_stuck_scrape 1.0");
        } finally {
            release.countDown();
        }
    }

    @Test
    void routesAnswers404WhenSwitchedOff() throws Exception {
        try (AdminServer routesOff = new AdminServer("127.0.0.1", 0, false, health, routes, registry)) {
            routesOff.start();
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + routesOff.port() + "/routes")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(response.statusCode()).isEqualTo(404);
            assertThat(response.body()).contains("unknown path /routes").doesNotContain("or /routes");
        }
    }

    @Test
    void aConnectionBeyondTheCapIsServedAndTheOldestConnectionClosed() throws Exception {
        List<Socket> open = new ArrayList<>();
        try {
            for (int i = 0; i < AdminServer.MAX_CONNECTIONS; i++) {
                open.add(connect());
            }
            // The server counts connections in accept order; a probe over all of them proves every one was counted.
            for (Socket socket : open) {
                assertThat(probe(socket)).startsWith("HTTP/1.1 200");
            }
            try (Socket extra = connect()) {
                assertThat(probe(extra)).startsWith("HTTP/1.1 200");
            }

            assertThat(open.get(0).getInputStream().read()).isEqualTo(-1);
            assertThat(probe(open.get(1))).startsWith("HTTP/1.1 200");
        } finally {
            for (Socket socket : open) {
                socket.close();
            }
        }
    }

    @Test
    void probesAreAnsweredWhileEveryConnectionSlotIsHeldByATricklingClient() throws Exception {
        List<Socket> trickling = new ArrayList<>();
        try {
            for (int i = 0; i < AdminServer.MAX_CONNECTIONS; i++) {
                Socket socket = connect();
                socket.getOutputStream().write('G');
                trickling.add(socket);
            }
            for (Socket socket : trickling) {
                socket.getOutputStream().write('E');
            }

            assertThat(get("/healthz", Duration.ofSeconds(5)).statusCode()).isEqualTo(200);
            assertThat(get("/readyz", Duration.ofSeconds(5)).statusCode()).isEqualTo(503);
        } finally {
            for (Socket socket : trickling) {
                socket.close();
            }
        }
    }

    @Test
    void aConnectionThatTricklesItsRequestIsClosedAtTheRequestDeadlineThoughBytesKeepComing() throws Exception {
        try (AdminServer shortDeadline = new AdminServer("127.0.0.1", 0, true, health, routes, registry,
                Duration.ofMillis(500));
             Socket socket = new Socket()) {
            shortDeadline.start();
            socket.connect(new java.net.InetSocketAddress("127.0.0.1", shortDeadline.port()));
            socket.setSoTimeout(100);
            byte[] request = "GET /healthz HTTP/1.1\r\nHost: admin\r\n".getBytes(StandardCharsets.US_ASCII);
            int read = 0;
            // Each byte arrives 100 ms after the last, well inside any idle timeout; the deadline still ends it.
            for (int i = 0; i < request.length && read != -1; i++) {
                try {
                    socket.getOutputStream().write(request[i]);
                    read = socket.getInputStream().read();
                } catch (java.net.SocketTimeoutException stillOpen) {
                    read = 0;
                } catch (IOException reset) {
                    read = -1;
                }
            }
            assertThat(read).as("closed before the request's headers were all sent").isEqualTo(-1);
        }
    }

    @Test
    void portInUseFailsStartWithTheAddress() {
        AdminServer second = new AdminServer("127.0.0.1", server.port(), true, health, routes, registry);

        assertThatThrownBy(second::start).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("127.0.0.1:" + server.port());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return get(path, Duration.ofSeconds(10));
    }

    private HttpResponse<String> get(String path, Duration timeout) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri(path)).timeout(timeout).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode routesJson() throws Exception {
        HttpResponse<String> response = get("/routes");
        assertThat(response.statusCode()).isEqualTo(200);
        return new ObjectMapper().readTree(response.body());
    }

    private Socket connect() throws IOException {
        Socket socket = new Socket("127.0.0.1", server.port());
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** A keep-alive /healthz over a raw socket; returns the status line. */
    private static String probe(Socket socket) throws IOException {
        socket.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: admin\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
        byte[] answer = new byte[512];
        int read = socket.getInputStream().read(answer);
        return read < 0 ? "closed" : new String(answer, 0, read, StandardCharsets.US_ASCII);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }
}
