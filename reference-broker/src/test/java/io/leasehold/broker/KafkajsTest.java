package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.audit.JournalEntry;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.SendOutcome;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.testing.KafkajsConsumer;
import io.leasehold.testing.KafkajsProducer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** kafkajs against the broker, through the harness the end-to-end tests use for the third client stack. */
@ExtendWith(EtcdExtension.class)
class KafkajsTest {

    private static final String TOPIC = "kafkajs-topic";

    private BrokerCluster cluster;

    @TempDir
    Path logDir;

    @BeforeEach
    void startBroker(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        cluster.start(1);
        cluster.createTopic(TOPIC, 2);
    }

    @AfterEach
    void stopBroker() {
        cluster.close();
    }

    @Test
    void kafkajsProducerJournalsEveryRecordWithItsOffsetAndAGroupMemberReadsThemAll() {
        ProduceJournal journal = new ProduceJournal();
        KafkajsProducer producer = new KafkajsProducer(cluster.bootstrap(), "js0", TOPIC, 1, 30, 64, Duration.ZERO,
                Duration.ofSeconds(60));

        KafkajsProducer.Result result = producer.run(journal, logDir);

        assertThat(result.errors()).isEmpty();
        assertThat(result.exitCode()).isZero();
        assertThat(result.acked()).isEqualTo(30);
        assertThat(journal.count(SendOutcome.ACKED)).isEqualTo(30);
        assertThat(journal.entries()).extracting(JournalEntry::offset)
                .containsExactlyInAnyOrderElementsOf(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L,
                        15L, 16L, 17L, 18L, 19L, 20L, 21L, 22L, 23L, 24L, 25L, 26L, 27L, 28L, 29L));

        try (KafkajsConsumer consumer = KafkajsConsumer.start("js-reader", cluster.bootstrap(), TOPIC, "js-readers",
                Duration.ofMillis(100), logDir)) {
            assertThat(consumer.awaitReceived(30, Duration.ofSeconds(60)))
                    .as("30 records within 60 s, log %s", consumer.log()).isTrue();
            assertThat(consumer.received()).extracting(KafkajsConsumer.Received::identity)
                    .containsExactlyInAnyOrderElementsOf(journal.entries().stream()
                            .map(entry -> Optional.of(entry.identity())).toList());
            assertThat(consumer.received()).allMatch(record -> record.partition() == 1);
            assertThat(consumer.joins()).isPositive();
            assertThat(consumer.errors()).isEmpty();
        }
    }

    @Test
    void kafkajsProducerReportsEachRecordItCouldNotWrite() {
        ProduceJournal journal = new ProduceJournal();
        KafkajsProducer producer = new KafkajsProducer(cluster.bootstrap(), "js1", "no-such-topic", 0, 3, 64, Duration.ZERO,
                Duration.ofSeconds(90));

        KafkajsProducer.Result result = producer.run(journal, logDir);

        assertThat(result.acked()).isZero();
        assertThat(result.failed() + result.unconfirmed()).isEqualTo(3);
        assertThat(result.exitCode()).isNotZero();
        assertThat(journal.count(SendOutcome.ACKED)).isZero();
        assertThat(journal.entries()).extracting(JournalEntry::outcome).doesNotContain(SendOutcome.ACKED, SendOutcome.SENT);
    }
}
