package io.leasehold.proxy.quotas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.files.MountedFileWatcher;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The watched quotas file: changes swap the rules in, a bad change keeps the old ones and is counted. */
class QuotasFileTest {
    @Test
    void aChangedFileReplacesTheRulesAndABadChangeKeepsThePreviousOnes(@TempDir Path dir) throws Exception {
        Path path = Files.writeString(dir.resolve("quotas.yaml"), "quotas:\n  - {user: slow, producerByteRate: 100}\n");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        QuotasFile file = QuotasFile.load(path);
        try (MountedFileWatcher watcher = new MountedFileWatcher(Duration.ofMillis(20))) {
            file.reloadWith(watcher, new QuotaMetrics(registry));
            assertThat(produceQuotaOfSlow(file)).hasValue(100);

            replace(path, "quotas:\n  - {user: slow, producerByteRate: 0}\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> reloads(registry, "failure") == 1);
            assertThat(produceQuotaOfSlow(file)).as("the last good rules stay in force").hasValue(100);

            replace(path, "quotas:\n  - {user: slow, producerByteRate: 200}\n");
            await().atMost(Duration.ofSeconds(10)).until(() -> reloads(registry, "success") == 1);
            assertThat(produceQuotaOfSlow(file)).hasValue(200);
            assertThat(reloads(registry, "failure")).as("a bad file is counted once, not on every check").isEqualTo(1);
        }
    }

    @Test
    void aBadFileAtStartIsAnErrorNamingFileEntryLineAndKey(@TempDir Path dir) throws Exception {
        Path path = Files.writeString(dir.resolve("quotas.yaml"), "quotas:\n  - {user: slow, producerByteRate: x}\n");

        assertThatThrownBy(() -> QuotasFile.load(path)).isInstanceOf(QuotasFileException.class)
                .hasMessage(path + ": quotas[0] (line 2).producerByteRate: expected a positive number, was \"x\"");
        assertThatThrownBy(() -> QuotasFile.load(dir.resolve("missing.yaml"))).isInstanceOf(QuotasFileException.class)
                .hasMessageContaining("missing.yaml: cannot read the quotas file");
    }

    private static double reloads(SimpleMeterRegistry registry, String outcome) {
        var counter = registry.find("leasehold.quota.reloads").tag("outcome", outcome).counter();
        return counter == null ? 0 : counter.count();
    }

    private static java.util.OptionalDouble produceQuotaOfSlow(QuotasFile file) {
        return file.current().quota(QuotaType.PRODUCER_BYTE_RATE, Optional.of("slow"), "any");
    }

    /** Swaps the file's content in one step, as a Kubernetes volume update does. */
    private static void replace(Path path, String content) throws IOException {
        Path next = Files.writeString(path.resolveSibling(path.getFileName() + ".next"), content);
        Files.move(next, path, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
}
