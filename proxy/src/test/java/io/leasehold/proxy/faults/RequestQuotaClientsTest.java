package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real clients of every stack through {@code limits.requestsPerSecondPerConnection}: a
 * kafka-clients producer writing without pause, kcat and kafkajs producers writing as fast as
 * their feeders go, and a Java consumer group, a kcat consumer and a kafkajs consumer reading, all
 * through one proxy with the default limits and then through one with a quota of
 * {@value #LOW_QUOTA} requests a second per connection. With the defaults no request is
 * throttled and no connection muted or refused; over the low quota the proxy holds requests back
 * (counted), and every client still delivers and reads every record without an error: throttling
 * costs them time, never a failure.
 */
class RequestQuotaClientsTest {
    private static final int PARTITIONS = 4;
    private static final int LOW_QUOTA = 3;
    private static final Duration WRITING = Duration.ofSeconds(6);
    private static final Duration PROGRESS = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    @Test
    void clientsOfEveryStackAreNeverThrottledByTheDefaultLimitsAndOnlySlowedDownOverALowQuota() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder("quota").brokers(1).start();
             LaunchedProxy defaults = LaunchedProxy.start(cluster, dir, "default-limits-proxy",
                     JavaCommand.ofCurrentClasspath(), Map.of());
             LaunchedProxy throttling = LaunchedProxy.start(cluster, dir, "low-quota-proxy",
                     JavaCommand.ofCurrentClasspath(),
                     Map.of("LEASEHOLD_LIMITS_REQUESTS_PER_SECOND_PER_CONNECTION", String.valueOf(LOW_QUOTA)))) {
            cluster.createTopic("unthrottled", PARTITIONS);
            cluster.createTopic("throttled", PARTITIONS);
            PrometheusScrape open = new PrometheusScrape(defaults.adminUrl());
            PrometheusScrape low = new PrometheusScrape(throttling.adminUrl());

            int unthrottled = writeAndReadWithEveryStack(cluster, defaults.address(), "unthrottled", 0);
            assertThat(open.value("leasehold_requests_throttled_total", "")).as("requests throttled by default")
                    .isZero();
            assertThat(open.value("leasehold_client_connection_mutes_total", "")).as("connections muted by default")
                    .isZero();
            assertThat(open.value("leasehold_client_connections_refused_total", ""))
                    .as("connections refused by default (-1: none ever)").isLessThanOrEqualTo(0);

            int slowed = writeAndReadWithEveryStack(cluster, throttling.address(), "throttled", 1);
            double throttled = low.value("leasehold_requests_throttled_total", "");
            assertThat(throttled).as("requests held back over a quota of " + LOW_QUOTA + "/s").isPositive();
            assertThat(low.value("leasehold_client_connection_mutes_total", "")).as("connections muted").isPositive();
            System.out.printf("request quota: default limits %d records written and read by every stack, 0 throttled; "
                    + "quota %d/s: %d records, %.0f requests throttled%n", unthrottled, LOW_QUOTA, slowed, throttled);
        }
    }

    /**
     * Java, kcat and kafkajs producers write for {@link #WRITING} ({@code intervalMillis} between
     * records) while a consumer of each stack reads; asserts every producer delivered without a
     * failure and every consumer read every acknowledged record; returns how many there were.
     */
    static int writeAndReadWithEveryStack(LocalCluster cluster, String bootstrap, String topic,
                                                  long intervalMillis) throws Exception {
        Path logs = cluster.logDir().resolve(topic);
        JavaWriter javaWriter = new JavaWriter(bootstrap, topic, PARTITIONS, intervalMillis);
        KcatWriter kcatWriter = new KcatWriter(bootstrap, topic, intervalMillis, logs);
        KafkajsWriter kafkajsWriter = new KafkajsWriter(bootstrap, topic, intervalMillis, logs);
        JavaGroupReader javaReader = new JavaGroupReader(bootstrap, topic, topic + "-java", 1, 100);
        KcatReader kcatReader = new KcatReader(bootstrap, topic, 100, logs);
        KafkajsConsumer kafkajs = KafkajsConsumer.start("kafkajs-" + topic, bootstrap, topic, topic + "-kafkajs",
                Duration.ofMillis(100), logs);
        try {
            Thread.sleep(WRITING.toMillis());
            javaWriter.close();
            kcatWriter.finish();
            boolean kafkajsDone = kafkajsWriter.finish();
            assertThat(javaWriter.failures()).as("records the Java producer failed").isEmpty();
            assertThat(kcatWriter.deliveryFailures()).as("records kcat failed, see " + kcatWriter.log()).isEmpty();
            assertThat(kcatWriter.exitCode()).as("kcat producer exit code, see " + kcatWriter.log()).isZero();
            assertThat(kafkajsWriter.failures()).as("records kafkajs failed, see " + kafkajsWriter.log()).isEmpty();
            assertThat(kafkajsDone).as("kafkajs producer finished, see " + kafkajsWriter.log()).isTrue();
            assertThat(kafkajsWriter.exitCode()).as("kafkajs producer exit code").isZero();
            Set<String> acked = new HashSet<>(javaWriter.acked());
            acked.addAll(kcatWriter.sent());
            acked.addAll(kafkajsWriter.acked());
            assertThat(javaWriter.acked()).as("records the Java producer delivered").isNotEmpty();
            assertThat(kafkajsWriter.acked()).as("records kafkajs delivered").isNotEmpty();
            assertThat(kcatWriter.sent()).as("records kcat delivered").isNotEmpty();

            ReadLog kafkajsReads = new ReadLog("kafkajs consumer");
            List<ReadLog> readers = List.of(javaReader.log(), kcatReader.log(), kafkajsReads);
            await().atMost(PROGRESS).pollInterval(Duration.ofMillis(500)).until(() -> {
                List<KafkajsConsumer.Received> received = kafkajs.received();
                for (int i = kafkajsReads.count(); i < received.size(); i++) {
                    KafkajsConsumer.Received r = received.get(i);
                    kafkajsReads.read(r.value(), r.partition(), r.receivedAtMillis());
                }
                return readers.stream().allMatch(reader -> reader.missing(acked).isEmpty());
            });
            assertThat(javaReader.errors()).as("what the Java consumer's poll() threw").isEmpty();
            assertThat(kcatReader.isAlive()).as("kcat consumer still running, see " + kcatReader.stderr()).isTrue();
            assertThat(kafkajs.errors()).as("errors the kafkajs consumer gave up on, see " + kafkajs.log()).isEmpty();
            return acked.size();
        } finally {
            javaWriter.close();
            kcatWriter.kill();
            kafkajsWriter.kill();
            javaReader.close();
            kcatReader.close();
            kafkajs.close();
        }
    }
}
