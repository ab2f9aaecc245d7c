package io.leasehold.proxy.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.leasehold.proxy.testing.PrometheusScrape;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.routing.testing.LoopbackPorts;
import io.leasehold.testing.JavaCommand;
import io.leasehold.testing.ManagedProcess;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code limits} section of a real proxy's YAML config is enforced on real sockets and each
 * enforcement shows in its Prometheus {@code /metrics}: the connection beyond
 * {@code maxConnections} is closed and counted, a frame over {@code maxFrameBytes} closes its
 * connection and is counted as oversized, a connection idle past {@code idleTimeout} is closed and
 * counted. (The frontend's own tests prove the same rules in-process; this proves the wiring from
 * the config file to the running process and its metrics.)
 */
class LimitsInMetricsTest {

    @TempDir
    Path dir;

    @Test
    void configuredLimitsCloseOffendingConnectionsAndAreCountedInMetrics() throws Exception {
        try (EtcdServer etcd = EtcdServer.start()) {
            int[] ports = LoopbackPorts.take(2);
            int port = ports[0];
            int adminPort = ports[1];
            Path config = Files.writeString(dir.resolve("proxy.yaml"), """
                    listener: { host: 127.0.0.1, port: %d, advertisedHost: 127.0.0.1, advertisedPort: %d }
                    etcd:     { endpoints: ["%s"], prefix: /kafscale }
                    backends: { bootstrap: ["127.0.0.1:1"] }
                    admin:    { host: 127.0.0.1, port: %d }
                    limits:   { maxFrameBytes: 1024, maxConnections: 2, idleTimeout: 3s, maxInFlightPerConnection: 8 }
                    """.formatted(port, port, etcd.endpoint(), adminPort));
            try (ManagedProcess proxy = ManagedProcess.start("limits-proxy", JavaCommand.ofCurrentClasspath().command(
                    "io.leasehold.proxy.Main", List.of("--config", config.toString())), dir.resolve("logs"), Map.of())) {
                proxy.awaitReady(Duration.ofSeconds(60));
                PrometheusScrape metrics = new PrometheusScrape("http://127.0.0.1:" + adminPort);

                try (Socket first = new Socket("127.0.0.1", port); Socket second = new Socket("127.0.0.1", port)) {
                    await().atMost(Duration.ofSeconds(10)).until(() -> metrics.value("leasehold_client_connections", "") == 2);
                    assertThat(closedAfter(port, new byte[0])).as("a third connection").isTrue();
                }
                // The next connections must not be refused for the limit before the proxy saw these two close.
                await().atMost(Duration.ofSeconds(10)).until(() -> metrics.value("leasehold_client_connections", "") == 0);
                assertThat(closedAfter(port, frameHeader(4096))).as("a 4096-byte frame over the 1024-byte limit").isTrue();
                try (Socket idle = new Socket("127.0.0.1", port)) {
                    idle.setSoTimeout(15_000);
                    assertThat(readOrClosed(idle)).as("an idle connection is closed").isEqualTo(-1);
                }

                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    assertThat(metrics.value("leasehold_client_connections_refused_total", "reason=\"max_connections\""))
                            .isGreaterThanOrEqualTo(1);
                    assertThat(metrics.value("leasehold_frames_rejected_total", "reason=\"oversized\"")).isEqualTo(1);
                    assertThat(metrics.value("leasehold_client_connections_idle_closed_total", "")).isGreaterThanOrEqualTo(1);
                });
            }
        }
    }

    private static byte[] frameHeader(int length) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeInt(length);
        out.write(new byte[64]);
        return bytes.toByteArray();
    }

    private static boolean closedAfter(int port, byte[] bytes) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            socket.getOutputStream().write(bytes);
            return readOrClosed(socket) == -1;
        }
    }

    private static int readOrClosed(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read();
        } catch (SocketException reset) {
            return -1;
        }
    }
}
