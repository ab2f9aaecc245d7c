package io.leasehold.proxy.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Requests a session sends to a broker before its connection is open reach the broker in the
 * order they were sent: a client's pipelined produce batches of one partition must not overtake
 * each other on the first connection to their owner.
 */
class SendOrderWhileConnectingTest {
    private static final int REQUESTS = 5;

    @Test
    void requestsSentWhileTheConnectionOpensArriveInSendOrder() throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            BackendSession session = BackendConnector.builder(new BackendConnector.Settings(Duration.ofSeconds(2),
                            Duration.ofSeconds(5), Duration.ofSeconds(5), 1 << 20), new BackendListener() { })
                    .build()
                    .openSession(group.next(), new BackendListener() { });
            BrokerAddress broker = new BrokerAddress(1, "127.0.0.1", server.getLocalPort(), null);
            // All in one event-loop task, so none can find the connection open yet.
            session.eventLoop().execute(() -> IntStream.range(0, REQUESTS)
                    .forEach(marker -> session.send(broker, request(marker))));
            server.setSoTimeout(10_000);
            try (Socket accepted = server.accept()) {
                assertThat(markersRead(accepted)).isEqualTo(List.of(0, 1, 2, 3, 4));
            } finally {
                session.close();
            }
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** A request frame body: api key, version, correlation id (the connection sets it), then the marker. */
    private static ByteBuf request(int marker) {
        return Unpooled.buffer(12).writeShort(18).writeShort(0).writeInt(0).writeInt(marker);
    }

    private static List<Integer> markersRead(Socket socket) throws IOException {
        socket.setSoTimeout(10_000);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        List<Integer> markers = new ArrayList<>();
        for (int i = 0; i < REQUESTS; i++) {
            byte[] frame = new byte[in.readInt()];
            in.readFully(frame);
            markers.add(ByteBuffer.wrap(frame).getInt(8));
        }
        return markers;
    }
}
