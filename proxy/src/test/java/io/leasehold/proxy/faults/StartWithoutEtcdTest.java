package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.audit.AuditVerdict;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.testing.ClusterAudit;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsProducer;
import io.leasehold.testing.LocalCluster;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd is down when a proxy starts (issue 15, item 6). Two reference brokers start while etcd is
 * up and the topics are created; then etcd stops and a proxy starts with
 * {@code routing.startWithoutEtcd}. It must open its listener on the bootstrap brokers, say so in
 * {@code /readyz}, its metrics and its log, and serve clients: a Java producer, kcat and kafkajs
 * connect and negotiate through it. The reference brokers need etcd for metadata and to claim
 * partitions, so nothing is written during the outage; when etcd returns the proxy loads the
 * routing snapshot, switches to routing by owner, and every producer's records are acknowledged
 * without restarting any client.
 */
class StartWithoutEtcdTest {
    private static final String TOPIC = "no-etcd-at-start";
    private static final String KAFKAJS_TOPIC = "no-etcd-at-start-kafkajs";
    private static final int PARTITIONS = 4;
    private static final int KAFKAJS_RECORDS = 60;
    /** How long clients keep trying through the proxy before etcd comes back. */
    private static final Duration OUTAGE_WITH_CLIENTS = Duration.ofSeconds(6);
    private static final Pattern API_VERSIONS_ANSWERED =
            Pattern.compile("leasehold_requests_seconds_count\\{api=\"ApiVersions\",outcome=\"ok\"} ([0-9.]+)");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @TempDir
    Path dir;

    @Test
    void aProxyStartedWhileEtcdIsDownServesOnTheBootstrapBrokersAndRoutesByOwnerOnceEtcdReturns() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("start-without-etcd").brokers(2).start()) {
            cluster.createTopic(TOPIC, PARTITIONS);
            cluster.createTopic(KAFKAJS_TOPIC, 1);
            cluster.etcd().stop();
            try (LaunchedProxy proxy = LaunchedProxy.start(cluster, dir, "proxy-without-etcd",
                    JavaCommand.ofCurrentClasspath(), Map.of("LEASEHOLD_ROUTING_START_WITHOUT_ETCD", "true",
                            "LEASEHOLD_ROUTING_INITIAL_LOAD_TIMEOUT", "2s"))) {
                await().atMost(Duration.ofSeconds(20)).until(() -> get(proxy.adminUrl() + "/readyz").statusCode() == 200);
                assertThat(get(proxy.adminUrl() + "/readyz").body())
                        .startsWith("ready, routing on backends.bootstrap: routing snapshot not loaded from etcd yet");
                assertThat(metrics(proxy)).contains("leasehold_routing_mode{mode=\"bootstrap\"} 1.0")
                        .contains("leasehold_routing_mode{mode=\"etcd\"} 0.0");
                assertThat(log(proxy)).contains("serving anyway (routing.startWithoutEtcd)");

                JavaWriter javaWriter = new JavaWriter(proxy.address(), TOPIC, PARTITIONS, 50);
                KcatWriter kcatWriter = new KcatWriter(proxy.address(), TOPIC, 100, cluster.logDir());
                ProduceJournal journal = new ProduceJournal();
                CompletableFuture<KafkajsProducer.Result> kafkajs = CompletableFuture.supplyAsync(() ->
                        new KafkajsProducer(proxy.address(), "kafkajs-no-etcd", KAFKAJS_TOPIC, 0, KAFKAJS_RECORDS, 64,
                                Duration.ofMillis(200), Duration.ofSeconds(120)).run(journal, cluster.logDir()));
                try {
                    // Every client's first request is ApiVersions, answered by the proxy from the brokers' versions.
                    await().atMost(Duration.ofSeconds(20)).until(() -> apiVersionsAnswered(proxy) >= 3);
                    Thread.sleep(OUTAGE_WITH_CLIENTS.toMillis());
                    assertThat(javaWriter.acked()).as("records acked while no broker could claim a partition").isEmpty();
                } finally {
                    cluster.etcd().restart();
                }

                await().atMost(Duration.ofSeconds(30)).until(() -> metrics(proxy)
                        .contains("leasehold_routing_mode{mode=\"etcd\"} 1.0"));
                assertThat(metrics(proxy)).contains("leasehold_routing_mode{mode=\"bootstrap\"} 0.0");
                assertThat(log(proxy)).contains("routing snapshot loaded from etcd: routing by partition and group owner");
                // Plain "ready" once a reachability probe has answered through the snapshot's brokers.
                await().atMost(Duration.ofSeconds(30)).until(() -> get(proxy.adminUrl() + "/readyz").body().equals("ready\n"));

                await().atMost(Duration.ofSeconds(90)).until(() -> javaWriter.acked().size() >= 100
                        && kcatWriter.sent().size() >= 100 && kafkajs.isDone());
                javaWriter.close();
                kcatWriter.finish();
                KafkajsProducer.Result kafkajsResult = kafkajs.get(10, TimeUnit.SECONDS);
                AuditVerdict audit = new ClusterAudit(cluster, Duration.ofSeconds(30)).audit(journal, false);
                System.out.printf("start without etcd: java %d acked / %d failed, kcat %d sent (exit %d), kafkajs %s, "
                        + "audit %s%n", javaWriter.acked().size(), javaWriter.failures().size(), kcatWriter.sent().size(),
                        kcatWriter.exitCode(), kafkajsResult, audit);

                assertThat(javaWriter.failures()).as("records the Java producer failed").isEmpty();
                assertThat(kcatWriter.deliveryFailures()).as("records kcat failed, see " + kcatWriter.log()).isEmpty();
                assertThat(kcatWriter.exitCode()).as("kcat exit code, see " + kcatWriter.log()).isZero();
                assertThat(kafkajsResult.acked()).as("kafkajs records acked: " + kafkajsResult).isEqualTo(KAFKAJS_RECORDS);
                assertThat(audit.clean()).as("kafkajs records on the brokers: " + audit).isTrue();
            }
        }
    }

    @Test
    void theProxyOnLinuxUsesTheNativeEpollTransport() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("epoll-transport").brokers(1).start();
             LaunchedProxy proxy = LaunchedProxy.start(cluster, dir, "proxy-epoll", JavaCommand.ofCurrentClasspath(),
                     Map.of())) {
            // The shaded jar and the image carry epoll's native library for linux x86_64 and aarch64 only.
            String arch = System.getProperty("os.arch");
            boolean nativeShipped = System.getProperty("os.name").equals("Linux")
                    && (arch.equals("amd64") || arch.equals("aarch64"));
            assertThat(log(proxy)).contains("Kafka listener and broker connections use the "
                    + (nativeShipped ? "EPOLL" : "NIO") + " transport");
        }
    }

    private HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private String metrics(LaunchedProxy proxy) throws IOException, InterruptedException {
        return get(proxy.adminUrl() + "/metrics").body();
    }

    private double apiVersionsAnswered(LaunchedProxy proxy) throws IOException, InterruptedException {
        Matcher matcher = API_VERSIONS_ANSWERED.matcher(metrics(proxy));
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : 0;
    }

    private static String log(LaunchedProxy proxy) throws IOException {
        return Files.readString(proxy.process().stderrLog()) + Files.readString(proxy.process().stdoutLog());
    }
}
