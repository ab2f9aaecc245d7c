package io.leasehold.proxy.frontend;

import static io.leasehold.proxy.frontend.KafkaWire.roundTrip;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.proxy.admin.ProxyMetrics;
import io.leasehold.proxy.backend.BackendConnector;
import io.leasehold.proxy.backend.BackendListener;
import io.leasehold.routing.testing.LoopbackPorts;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The listener with node ports: each serves requests exactly like the bootstrap port, counts its
 * connections under its own name, and all of them open and close together.
 */
class NodePortsTest {
    private final EventLoopGroup boss = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final EventLoopGroup workers = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @AfterEach
    void stop() {
        workers.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        boss.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private FrontendServer server(List<FrontendServer.NodePort> nodePorts) {
        return FrontendServer.builder("127.0.0.1", 0, boss, workers, KafkaWire.ANSWER_EVERYTHING,
                        BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(1),
                                Duration.ofSeconds(1), Duration.ofSeconds(1), 1024), new BackendListener() { }).build(),
                        new ProxyMetrics(registry), TestLimits.builder().idleTimeout(Duration.ofSeconds(10)).build())
                .nodePorts(nodePorts)
                .build();
    }

    /**
     * Whether {@code port} can be bound again within a few seconds: a closed listener's port is
     * released after its close completes, and another process's short-lived loopback connection
     * may hold the same number for a moment.
     */
    private static boolean bindable(int port) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        do {
            try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
                return true;
            } catch (IOException inUse) {
                Thread.onSpinWait();
            }
        } while (System.nanoTime() < deadline);
        return false;
    }

    private double accepted(String listener) {
        return registry.get("leasehold.listener.connections.accepted").tag("listener", listener).counter().count();
    }

    @Test
    void everyNodePortAnswersLikeTheBootstrapPortAndCountsItsOwnConnections() throws Exception {
        int node0 = LoopbackPorts.take();
        int node1 = LoopbackPorts.take();
        FrontendServer server = server(List.of(new FrontendServer.NodePort("node-0", node0),
                new FrontendServer.NodePort("node-1", node1)));
        try {
            int bootstrap = server.start().getPort();
            for (int port : new int[] {bootstrap, node0, node1, node1}) {
                try (Socket socket = new Socket("127.0.0.1", port)) {
                    KafkaWire.assertPipelinedAnswersInOrder(socket);
                }
            }
            assertThat(accepted(FrontendServer.BOOTSTRAP)).isEqualTo(1);
            assertThat(accepted("node-0")).isEqualTo(1);
            assertThat(accepted("node-1")).isEqualTo(2);
        } finally {
            server.close();
        }
        assertThat(bindable(node1)).as("closed with the server").isTrue();
    }

    @Test
    void aNodePortThatCannotBeBoundFailsTheStartAndLeavesNoPortListening() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int free = LoopbackPorts.take();
            FrontendServer server = server(List.of(new FrontendServer.NodePort("node-0", free),
                    new FrontendServer.NodePort("node-1", taken.getLocalPort())));
            assertThatThrownBy(server::start).hasMessageContaining("Address already in use");
            assertThat(bindable(free)).as("node-0 closed again").isTrue();
            server.close();
        }
    }

    @Test
    void aDrainClosesTheNodePortsToo() throws Exception {
        int node = LoopbackPorts.take();
        FrontendServer server = server(List.of(new FrontendServer.NodePort("node-7", node)));
        server.start();
        try (Socket socket = new Socket("127.0.0.1", node)) {
            assertThat(roundTrip(socket, 3)).isEqualTo(3);
        }
        assertThat(server.drain(Duration.ofSeconds(5))).isTrue();
        assertThat(bindable(node)).as("node-7 closed by the drain").isTrue();
        server.close();
    }
}
