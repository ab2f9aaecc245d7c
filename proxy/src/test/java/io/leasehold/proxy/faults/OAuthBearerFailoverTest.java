package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.security.FixedTokenLoginHandler;
import io.leasehold.proxy.testing.ConfiguredProxy;
import io.leasehold.proxy.testing.StringClients;
import io.leasehold.proxy.testing.TestTokens;
import io.leasehold.testing.BrokerProcess;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.LocalCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.SaslConfigs;
import org.jose4j.jwk.RsaJsonWebKey;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * OAUTHBEARER clients across broker faults: etcd, three reference brokers (2 s leases) and a
 * proxy that requires SASL/OAUTHBEARER. A Java producer and a kafkajs producer write, a Java
 * consumer group and a kafkajs consumer read, all with a signed token, while the owner of a
 * partition is SIGKILLed (its lease expires and another broker claims its partitions) and then
 * another owner is SIGSTOPped past its lease and resumed. Every reader must read, from every
 * partition of each fault, records written after it; in the end every acknowledged record is
 * read by every reader; no producer fails a record; and the topic, read again from the start,
 * holds every acknowledged record. Duplicates are printed, not asserted: the writers are not
 * idempotent, so a write whose answer died with the killed owner may be written again by a retry
 * (Kafka's at-least-once for such producers), and a group member that rejoins resumes from its
 * last committed offset.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OAuthBearerFailoverTest {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final int PARTITIONS = 6;
    private static final Duration PROGRESS = Duration.ofSeconds(30);
    private static final RsaJsonWebKey KEY = TestTokens.newKey("failover");

    private Path dir;
    private LocalCluster cluster;
    private ConfiguredProxy proxy;
    private String token;

    @BeforeAll
    void start(@TempDir Path tempDir) throws IOException {
        dir = tempDir;
        Path jwks = new TestTokens().publish(KEY).writeJwks(dir.resolve("jwks.json"));
        token = TestTokens.sign(TestTokens.claims("alice"), KEY);
        cluster = LocalCluster.builder("oauth-failover").brokers(3).leaseTtl(TTL).start();
        proxy = ConfiguredProxy.builder(cluster, dir, "oauth-failover-proxy").listener("""
                sasl:
                  mechanisms: [OAUTHBEARER]
                  oauthbearer:
                    jwksFile: %s
                    issuer: %s
                    audience: [%s]
                """.formatted(jwks, TestTokens.ISSUER, TestTokens.AUDIENCE)).start();
    }

    @AfterAll
    void stop() throws IOException {
        ConfiguredProxy.stopAll(cluster, proxy);
    }

    private Map<String, Object> javaSettings() {
        return Map.of(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT",
                SaslConfigs.SASL_MECHANISM, "OAUTHBEARER",
                SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, FixedTokenLoginHandler.class.getName(),
                SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule "
                        + "required token=\"" + token + "\";");
    }

    @Test
    void javaAndKafkajsOAuthBearerClientsKeepProducingAndConsumingAcrossAnOwnerKilledAndAnOwnerPaused()
            throws Exception {
        String topic = "oauth-failover";
        cluster.createTopic(topic, PARTITIONS);
        List<String> kafkajsOptions = List.of("--sasl-mechanism", "oauthbearer");
        Map<String, String> kafkajsToken = Map.of("LEASEHOLD_KAFKAJS_OAUTH_TOKEN", token);
        JavaWriter javaWriter = new JavaWriter(proxy.address(), topic, PARTITIONS, 20, javaSettings());
        KafkajsWriter kafkajsWriter = new KafkajsWriter(proxy.address(), topic, 50, cluster.logDir(), kafkajsOptions,
                kafkajsToken);
        JavaGroupReader javaReader = new JavaGroupReader(proxy.address(), topic, "oauth-java", 2, 100, javaSettings());
        KafkajsConsumer kafkajs = KafkajsConsumer.start("kafkajs-oauth-failover", proxy.address(), topic,
                "oauth-kafkajs", Duration.ofMillis(100), cluster.logDir(), kafkajsOptions, kafkajsToken);
        ReadLog kafkajsReads = new ReadLog("kafkajs consumer");
        List<ReadLog> readers = List.of(javaReader.log(), kafkajsReads);
        try {
            await().atMost(PROGRESS).until(() -> javaWriter.acked().size() >= 50 && kafkajsWriter.acked().size() >= 20);
            ClusterReads.awaitRead(readers, kafkajs, Set.copyOf(javaWriter.acked()), PROGRESS);
            // Brokers claim partitions as they are first used: the writers have used every one by now.
            Map<Integer, Integer> owners = ClusterReads.awaitEveryPartitionOwned(cluster, topic, PARTITIONS, PROGRESS);

            int killed = owners.get(0);
            Set<Integer> orphaned = ownedBy(owners, killed);
            long killedAt = System.currentTimeMillis();
            cluster.broker(killed).kill();
            awaitResumed(readers, kafkajs, killedAt, orphaned);

            Map<Integer, Integer> after = ClusterReads.awaitEveryPartitionOwned(cluster, topic, PARTITIONS, PROGRESS);
            int paused = after.values().stream().filter(id -> id != killed).findFirst().orElseThrow();
            Set<Integer> frozen = ownedBy(after, paused);
            BrokerProcess pausedBroker = cluster.broker(paused);
            long pausedAt = System.currentTimeMillis();
            pausedBroker.pauseFor(TTL.plusSeconds(2));
            awaitResumed(readers, kafkajs, pausedAt, frozen);

            javaWriter.close();
            assertThat(kafkajsWriter.finish()).as("kafkajs producer exited, see " + kafkajsWriter.log()).isTrue();
            Set<String> acked = new HashSet<>(javaWriter.acked());
            acked.addAll(kafkajsWriter.acked());
            ClusterReads.awaitRead(readers, kafkajs, acked, Duration.ofSeconds(60));

            System.out.printf("OAUTHBEARER across faults: %d Java and %d kafkajs records acknowledged; Java group read "
                    + "%d, kafkajs %d; reads resumed after the kill in %d / %d ms, after the pause in %d / %d ms; "
                    + "duplicates Java %d, kafkajs %d (kafkajs joined its group %d times)%n",
                    javaWriter.acked().size(), kafkajsWriter.acked().size(), javaReader.log().count(),
                    kafkajsReads.count(), javaReader.log().resumedAfterMillis(killedAt, orphaned),
                    kafkajsReads.resumedAfterMillis(killedAt, orphaned),
                    javaReader.log().resumedAfterMillis(pausedAt, frozen),
                    kafkajsReads.resumedAfterMillis(pausedAt, frozen), javaReader.log().duplicates(),
                    kafkajsReads.duplicates(), kafkajs.joins());
            assertThat(javaWriter.failures()).as("records the Java producer failed").isEmpty();
            assertThat(kafkajsWriter.failures()).as("records kafkajs failed, see " + kafkajsWriter.log()).isEmpty();
            assertThat(javaReader.errors()).as("what poll() threw").isEmpty();
            assertThat(kafkajs.errors()).as("errors kafkajs gave up on, see " + kafkajs.log()).isEmpty();
            // At least once, for the log too: the writers are not idempotent (see the class comment).
            Map<String, Object> audit = new HashMap<>(javaSettings());
            audit.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, proxy.address());
            List<String> log = StringClients.consume(audit, topic, "audit-" + UUID.randomUUID(), acked.size());
            assertThat(log).as("the topic read once more from the start").containsAll(acked);
            System.out.printf("oauthbearer failover: the topic holds %d records, %d of them written twice%n",
                    log.size(), log.size() - new HashSet<>(log).size());
        } finally {
            javaWriter.close();
            kafkajsWriter.kill();
            javaReader.close();
            kafkajs.close();
        }
    }

    private static Set<Integer> ownedBy(Map<Integer, Integer> owners, int broker) {
        Set<Integer> partitions = new TreeSet<>();
        owners.forEach((partition, owner) -> {
            if (owner == broker) {
                partitions.add(partition);
            }
        });
        return partitions;
    }

    /** Waits until every reader read, from each of {@code partitions}, a record sent after the fault. */
    private static void awaitResumed(List<ReadLog> readers, KafkajsConsumer kafkajs, long faultAt,
                                     Set<Integer> partitions) {
        await().atMost(PROGRESS).pollInterval(Duration.ofMillis(100)).until(() -> {
            ClusterReads.copyKafkajs(kafkajs, readers.get(readers.size() - 1));
            return readers.stream().allMatch(r -> r.resumedAfterMillis(faultAt, partitions) >= 0);
        });
    }
}
