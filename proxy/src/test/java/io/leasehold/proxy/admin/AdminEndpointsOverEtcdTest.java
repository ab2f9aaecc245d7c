package io.leasehold.proxy.admin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.leasehold.proxy.config.EtcdClientFactory;
import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.routing.keys.BrokerRegistration;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.routing.watch.OwnershipWatcher;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The admin endpoints over the real routing view: a real etcd, the real OwnershipWatcher, keys
 * written the way brokers write them, and HTTP requests against the started AdminServer.
 */
class AdminEndpointsOverEtcdTest {

    private static final Duration STALE_BOUND = Duration.ofSeconds(1);

    private final KeySchema keys = new KeySchema(KeySchema.DEFAULT_PREFIX);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void routesAndReadinessFollowEtcdIncludingAnOutage() throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (EtcdServer etcd = EtcdServer.start();
             Client client = new EtcdClientFactory("test").create(
                     new ProxyConfig.Etcd(List.of(etcd.endpoint()), keys.prefix(), Duration.ofSeconds(5)));
             OwnershipWatcher watcher = OwnershipWatcher.start(client, keys);
             ProxyMetrics metrics = new ProxyMetrics(registry);
             AdminServer admin = new AdminServer("127.0.0.1", 0, true,
                     new RoutingHealthProbe(watcher, new RoutingMode(watcher), STALE_BOUND, () -> true, () -> false, () -> true), watcher, registry)) {
            metrics.bindRoutingTable(watcher);
            put(client, keys.brokerKey(1), BrokerRegistration.toJson(new BrokerAddress(1, "127.0.0.1", 19092, null)));
            long epoch = put(client, keys.partitionLeaseKey("orders", 0), "1");
            admin.start();

            await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat(get(admin, "/readyz").statusCode()).isEqualTo(200));
            // The watcher may have loaded before the puts; the keys then arrive through the watch.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(json.readTree(get(admin, "/routes").body()).get("partitionCount").asInt()).isEqualTo(1));
            JsonNode routes = json.readTree(get(admin, "/routes").body());
            assertThat(routes.get("brokers").get(0).get("port").asInt()).isEqualTo(19092);
            assertThat(routes.get("partitions").get(0).toString())
                    .isEqualTo("{\"topic\":\"orders\",\"partition\":0,\"brokerId\":1,\"epoch\":" + epoch + "}");

            put(client, keys.groupLeaseKey("billing"), "1");
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(json.readTree(get(admin, "/routes").body()).get("groups").get(0).get("group").asText())
                            .isEqualTo("billing"));
            assertThat(get(admin, "/metrics").body())
                    .contains("leasehold_routing_snapshot_partitions 1.0")
                    .contains("leasehold_routing_snapshot_groups 1.0");

            etcd.stop();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                HttpResponse<String> readyz = get(admin, "/readyz");
                assertThat(readyz.statusCode()).isEqualTo(503);
                assertThat(readyz.body()).contains("routing snapshot stale for");
            });
            assertThat(json.readTree(get(admin, "/routes").body()).get("partitionCount").asInt())
                    .as("the last snapshot keeps serving while etcd is away").isEqualTo(1);

            etcd.restart();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(get(admin, "/readyz").statusCode()).isEqualTo(200));
        }
    }

    /** Puts a key and returns its create revision (the ownership epoch for lease keys). */
    private static long put(Client client, String key, String value) throws Exception {
        ByteSequence k = ByteSequence.from(key, StandardCharsets.UTF_8);
        client.getKVClient().put(k, ByteSequence.from(value, StandardCharsets.UTF_8)).get(10, TimeUnit.SECONDS);
        return client.getKVClient().get(k).get(10, TimeUnit.SECONDS).getKvs().get(0).getCreateRevision();
    }

    private HttpResponse<String> get(AdminServer admin, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + admin.port() + path))
                .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
