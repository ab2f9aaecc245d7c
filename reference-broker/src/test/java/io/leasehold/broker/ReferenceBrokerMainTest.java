package io.leasehold.broker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** The broker as a process: flags, the READY line, SIGTERM. */
@ExtendWith(EtcdExtension.class)
class ReferenceBrokerMainTest {

    @Test
    void badFlagsPrintUsageAndExitWithCode2() throws Exception {
        Process process = launch(List.of("--id", "one", "--host", "127.0.0.1"), ProcessBuilder.Redirect.PIPE);
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isEqualTo(2);
        assertThat(stderr).contains("--id must be an integer, got 'one'").contains("usage: reference-broker");
    }

    @Test
    void sigtermReleasesTheRegistrationAndExitsWithCode0(EtcdServer etcd, @TempDir Path dataDir) throws Exception {
        String prefix = "/main-test-" + UUID.randomUUID();
        Process process = launch(List.of("--id", "7", "--host", "127.0.0.1", "--port", "0", "--etcd", etcd.endpoint(),
                "--data-dir", dataDir.toString(), "--prefix", prefix, "--lease-ttl", "30s"),
                ProcessBuilder.Redirect.INHERIT);
        try (Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            BufferedReader stdout = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String ready = stdout.readLine();
            assertThat(ready).matches("READY 127\\.0\\.0\\.1:\\d+");
            assertThat(brokerKeys(client, prefix)).containsExactly(prefix + "/brokers/7");

            process.destroy();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isZero();
            // Released at once, not left to expire with the 30s lease.
            assertThat(brokerKeys(client, prefix)).isEmpty();
        } finally {
            process.destroyForcibly();
        }
    }

    private static List<String> brokerKeys(Client client, String prefix) throws Exception {
        ByteSequence key = ByteSequence.from(prefix + "/brokers/", StandardCharsets.UTF_8);
        return client.getKVClient().get(key, GetOption.builder().isPrefix(true).build()).get().getKvs().stream()
                .map(kv -> kv.getKey().toString(StandardCharsets.UTF_8)).toList();
    }

    private static Process launch(List<String> args, ProcessBuilder.Redirect stderr) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), ReferenceBrokerMain.class.getName()));
        command.addAll(args);
        return new ProcessBuilder(command).redirectError(stderr).start();
    }
}
