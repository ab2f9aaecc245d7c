package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** kcat (librdkafka) against the broker: it negotiates older protocol versions than kafka-clients. */
@ExtendWith(EtcdExtension.class)
class KcatTest {

    private BrokerCluster cluster;
    private ReferenceBroker broker;

    @BeforeEach
    void startBroker(EtcdServer etcd) throws Exception {
        cluster = new BrokerCluster(etcd);
        broker = cluster.start(1);
    }

    @AfterEach
    void stopBroker() {
        cluster.close();
    }

    @Test
    void kcatListsMetadataProducesAndConsumes() throws Exception {
        cluster.createTopic("kcat-topic", 2);

        String listing = kcat(null, "-L");
        assertThat(listing).contains("broker 1 at 127.0.0.1:" + broker.port())
                .contains("topic \"kcat-topic\" with 2 partitions");

        StringBuilder lines = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            lines.append("line-").append(i).append('\n');
        }
        kcat(lines.toString(), "-P", "-t", "kcat-topic", "-p", "1");

        String consumed = kcat(null, "-C", "-t", "kcat-topic", "-p", "1", "-o", "beginning", "-e", "-f", "%o:%s\n");
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            expected.add(i + ":line-" + i);
        }
        assertThat(consumed.lines().toList()).containsExactlyElementsOf(expected);
    }

    @Test
    void kcatBalancedConsumerGroupReadsEveryPartition() throws Exception {
        cluster.createTopic("kcat-group-topic", 3);
        for (int partition = 0; partition < 3; partition++) {
            kcat("p" + partition + "-a\np" + partition + "-b\n", "-P", "-t", "kcat-group-topic", "-p", Integer.toString(partition));
        }

        // librdkafka speaks older group protocol versions (JoinGroup v5, SyncGroup v3) than kafka-clients.
        String consumed = kcat(null, "-G", "kcat-readers", "-o", "beginning", "-e", "-f", "%s\n", "kcat-group-topic");

        assertThat(consumed.lines().toList()).containsExactlyInAnyOrder("p0-a", "p0-b", "p1-a", "p1-b", "p2-a", "p2-b");
    }

    private String kcat(String stdin, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kcat", "-b", BrokerCluster.bootstrap(broker), "-m", "10"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        if (stdin != null) {
            process.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("kcat " + args[0] + " did not finish within 30s");
        }
        assertThat(process.exitValue()).as("kcat %s exit code", String.join(" ", args)).isZero();
        return output;
    }
}
