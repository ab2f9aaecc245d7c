package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real clients of every stack under a byte-rate quota (KIP-219 throttling): kafka-clients, kcat
 * and kafkajs producers and consumers, all of the anonymous user, through a proxy whose quotas
 * file holds that user to a produce and a fetch quota they exceed. The proxy throttles them
 * (counted), and every client still delivers and reads every record without an error: a quota
 * costs them time, never a failure. kafka-clients and kafkajs wait out {@code throttle_time_ms}
 * themselves; librdkafka (kcat) only reports it, and the proxy's mute of the connection holds it.
 */
class ClientStacksUnderQuotaTest {
    private static final int PARTITIONS = 4;
    /**
     * Producers 1 ms apart write some 250-400 kB in the 6 s, over twice the ten seconds' worth a
     * fresh user may burst (so they are throttled however busy the machine), and a backlog that
     * drains in well under kcat's 60 s request timeout (kcat ignores throttle_time_ms).
     */
    private static final int PRODUCE_QUOTA = 10_000;
    private static final int FETCH_QUOTA = 100_000;

    @TempDir
    Path dir;

    @Test
    void clientsOfEveryStackProduceAndConsumeUnderAQuotaWithoutAnError() throws Exception {
        Path quotas = Files.writeString(dir.resolve("quotas.yaml"), "quotas:\n  - {user: ANONYMOUS, producerByteRate: "
                + PRODUCE_QUOTA + ", consumerByteRate: " + FETCH_QUOTA + "}\n");
        try (LocalCluster cluster = LocalCluster.builder("stacks-quota").brokers(1).start();
             LaunchedProxy proxy = LaunchedProxy.start(cluster, dir, "quota-proxy", JavaCommand.ofCurrentClasspath(),
                     Map.of("LEASEHOLD_QUOTAS_FILE", quotas.toString()))) {
            cluster.createTopic("quota", PARTITIONS);
            PrometheusScrape metrics = new PrometheusScrape(proxy.adminUrl());

            int records = RequestQuotaClientsTest.writeAndReadWithEveryStack(cluster, proxy.address(), "quota", 1);

            double produceThrottle = metrics.value("leasehold_quota_throttle_seconds_total",
                    "quota=\"producer_byte_rate\"");
            double fetchThrottle = metrics.value("leasehold_quota_throttle_seconds_total",
                    "quota=\"consumer_byte_rate\"");
            System.out.printf("clients under a quota: %d records written and read by every stack; throttled %.1f s "
                    + "producing, %.1f s fetching%n", records, produceThrottle, fetchThrottle);
            assertThat(produceThrottle).as("seconds producers were throttled").isPositive();
        }
    }
}
