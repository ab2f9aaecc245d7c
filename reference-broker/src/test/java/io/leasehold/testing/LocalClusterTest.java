package io.leasehold.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalClusterTest {

    @TempDir
    Path logs;

    @Test
    void closeKillsEveryProcessEvenAPausedOneAndDeletesTheData() {
        LocalCluster cluster = LocalCluster.builder("cleanup").brokers(2).logDir(logs).start();
        List<ProcessHandle> processes = cluster.brokers().stream()
                .map(broker -> ProcessHandle.of(broker.process().pid()).orElseThrow()).toList();
        Path storage = cluster.storageDir();
        assertThat(cluster.bootstrapServers().split(",")).hasSize(2);
        cluster.broker(2).pause();

        cluster.close();

        assertThat(processes).noneMatch(ProcessHandle::isAlive);
        assertThat(storage).doesNotExist();
        assertThat(cluster.etcd().isRunning()).isFalse();
        assertThat(logs.resolve("broker-1.err")).exists();
    }

    @Test
    void restartedBrokerComesBackOnItsPort() {
        try (LocalCluster cluster = LocalCluster.builder("restart").brokers(1).logDir(logs).start()) {
            BrokerProcess first = cluster.broker(1);
            first.kill();
            assertThat(first.isAlive()).isFalse();

            BrokerProcess second = cluster.startBroker(1);

            assertThat(second.port()).isEqualTo(first.port());
            assertThat(second.isAlive()).isTrue();
            assertThat(cluster.bootstrapServers()).isEqualTo(second.address());
        }
    }

    @Test
    void brokerThatCannotStartFailsTheStartWithItsLogAndLeavesNothingRunning() throws Exception {
        assertThatThrownBy(() -> LocalCluster.builder("bad-flags").brokers(1).logDir(logs)
                .extraBrokerArguments(List.of("--no-such-flag", "x")).startupTimeout(Duration.ofSeconds(30)).start())
                .hasMessageContaining("broker-1")
                .hasMessageContaining("no-such-flag");
        assertThat(Files.readString(logs.resolve("broker-1.err"))).contains("no-such-flag");
    }
}
