package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KcatProducerTest {

    @TempDir
    Path dir;

    @Test
    void unreachableBrokerLeavesEveryRecordUnconfirmed() throws Exception {
        ProduceJournal journal = new ProduceJournal();
        Path log = dir.resolve("kcat.log");
        KcatProducer kcat = new KcatProducer("kcat", "127.0.0.1:1", "kcat-0", "t", 0, 5, 32, Duration.ofSeconds(30),
                List.of("-X", "message.timeout.ms=2000"));

        int exitCode = kcat.run(journal, log);

        assertThat(exitCode).isNotZero();
        assertThat(journal.size()).isEqualTo(5);
        assertThat(journal.count(SendOutcome.FAILED)).isEqualTo(5);
        assertThat(Files.readString(log)).contains("kcat -P -b 127.0.0.1:1 -t t -p 0");
    }

    @Test
    void rejectsANegativePartition() {
        assertThatThrownBy(() -> new KcatProducer("kcat", "b", "k", "t", -1, 1, 10,
                Duration.ofSeconds(1), List.of())).hasMessageContaining("partition >= 0");
    }
}
