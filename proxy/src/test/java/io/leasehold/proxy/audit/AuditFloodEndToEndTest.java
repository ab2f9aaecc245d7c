package io.leasehold.proxy.audit;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.testing.LocalCluster;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit log's destination stops taking lines (a named pipe whose one reader never reads)
 * while {@code mallory} sends refused topic deletions worth more denials than the writer's queue
 * holds, and {@code alice} produces: every record of alice's arrives, nothing waits for the
 * audit log, and the lines it could not keep are counted as dropped.
 */
class AuditFloodEndToEndTest {
    /** Topic names per refused DeleteTopics request; each is one DENY line. */
    private static final int NAMES_PER_DELETE = 1_000;
    /** 100,000 DENY lines: more than the writer's queue (65,536) and the pipe's buffer together. */
    private static final int DELETES = 100;
    private static final int BATCHES = 10;
    private static final int RECORDS_PER_BATCH = 50;

    @TempDir
    Path dir;

    private Map<String, Object> as(ConfiguredProxy proxy, String user) {
        return Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address(),
                CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
                SaslConfigs.SASL_MECHANISM, "SCRAM-SHA-512",
                SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"" + user + "\" password=\"" + user + "-pw\";");
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES) // only a guard: a writer that blocked clients would hang here
    void aStuckAuditDestinationDropsLinesWithoutHoldingUpAllowedClients() throws Exception {
        Path users = Files.writeString(dir.resolve("users.yaml"), """
                users:
                  - {name: alice, password: "alice-pw"}
                  - {name: mallory, password: "mallory-pw"}
                """);
        Path acls = Files.writeString(dir.resolve("acls.yaml"), """
                acls:
                  - {principal: "User:alice", resourceType: TOPIC, name: flowing,
                     operations: [WRITE, READ, DESCRIBE], permission: ALLOW}
                  - {principal: "User:alice", resourceType: GROUP, patternType: PREFIXED, name: flowing-,
                     operations: [READ], permission: ALLOW}
                """);
        Path pipe = dir.resolve("audit.pipe");
        Process mkfifo = new ProcessBuilder("mkfifo", pipe.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor()).isZero();
        // Opened for reading and writing, a pipe never blocks its opener; nothing here reads it, so
        // once its buffer is full the audit writer's every write waits.
        try (RandomAccessFile stuckReader = new RandomAccessFile(pipe.toFile(), "rw");
             LocalCluster cluster = LocalCluster.builder("audit-flood").brokers(1).leaseTtl(Duration.ofSeconds(5))
                     .start()) {
            cluster.createTopic("flowing", 2);
            ConfiguredProxy proxy = ConfiguredProxy.builder(cluster, dir, "audit-flood-proxy")
                    .listener("sasl: { mechanisms: [SCRAM-SHA-512], usersFile: %s }".formatted(users))
                    .section("authorization: { aclsFile: %s }".formatted(acls))
                    .section("audit: { file: %s }".formatted(pipe)).start();
            try {
                CompletableFuture<Integer> refused = CompletableFuture.supplyAsync(() -> refusedDeletes(proxy));
                List<String> sent = new ArrayList<>();
                for (int batch = 0; batch < BATCHES; batch++) {
                    sent.addAll(StringClients.produce(as(proxy, "alice"), "flowing", "b" + batch + "-",
                            RECORDS_PER_BATCH));
                }

                assertThat(refused.get(5, TimeUnit.MINUTES)).isEqualTo(DELETES);
                assertThat(StringClients.consume(as(proxy, "alice"), "flowing", "flowing-readers", sent.size()))
                        .containsExactlyInAnyOrderElementsOf(sent);
                assertThat(proxy.metrics().value("leasehold_audit_lines_dropped_total", "")).isPositive();
            } finally {
                proxy.stop();
                proxy.close();
            }
        }
    }

    /** Sends {@link #DELETES} DeleteTopics requests that are refused for every name; returns how many were. */
    private int refusedDeletes(ConfiguredProxy proxy) {
        int refused = 0;
        try (Admin mallory = Admin.create(as(proxy, "mallory"))) {
            for (int round = 0; round < DELETES; round++) {
                int r = round;
                Set<String> names = IntStream.range(0, NAMES_PER_DELETE).mapToObj(i -> "victim-" + r + "-" + i)
                        .collect(Collectors.toSet());
                try {
                    mallory.deleteTopics(names).all().get(60, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof TopicAuthorizationException) {
                        refused++;
                    }
                } catch (Exception e) {
                    throw new IllegalStateException("a refused delete did not come back", e);
                }
            }
        }
        return refused;
    }
}
