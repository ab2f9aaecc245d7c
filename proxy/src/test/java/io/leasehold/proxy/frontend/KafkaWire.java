package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.request.RequestHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.ReferenceCounted;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;

/** Raw Kafka frames over a plain or TLS socket and a handler answering them, for the listener's own tests. */
final class KafkaWire {

    /** Answers every request with an empty ApiVersions response. */
    static final RequestHandler ANSWER_EVERYTHING = (request, client) -> {
        try {
            return CompletableFuture.<ReferenceCounted>completedFuture(KafkaMessages.encodeResponse(client.alloc(),
                    ApiKeys.API_VERSIONS, (short) 0, request.correlationId(), new ApiVersionsResponseData()));
        } finally {
            request.release();
        }
    };

    private KafkaWire() {
    }

    /** A length-prefixed ApiVersions v0 request. */
    static byte[] apiVersionsRequest(int correlationId) {
        ByteBuf request = KafkaMessages.encodeRequest(ByteBufAllocator.DEFAULT, ApiKeys.API_VERSIONS, (short) 0,
                "test", new ApiVersionsRequestData());
        try {
            KafkaMessages.withRequestCorrelationId(request, correlationId);
            byte[] body = new byte[request.readableBytes()];
            request.getBytes(request.readerIndex(), body);
            return lengthThen(body.length, body);
        } finally {
            request.release();
        }
    }

    /** Writes five requests back to back, then checks that their answers come in request order. */
    static void assertPipelinedAnswersInOrder(Socket socket) throws IOException {
        for (int i = 0; i < 5; i++) {
            socket.getOutputStream().write(apiVersionsRequest(100 + i));
        }
        DataInputStream in = new DataInputStream(socket.getInputStream());
        for (int i = 0; i < 5; i++) {
            int length = in.readInt();
            assertThat(in.readInt()).isEqualTo(100 + i);
            in.skipNBytes(length - 4);
        }
    }

    /** Sends an ApiVersions request and returns the correlation id of the response. */
    static int roundTrip(Socket socket, int correlationId) throws IOException {
        socket.getOutputStream().write(apiVersionsRequest(correlationId));
        DataInputStream in = new DataInputStream(socket.getInputStream());
        int length = in.readInt();
        int answered = in.readInt();
        in.skipNBytes(length - 4);
        return answered;
    }

    /** A 4-byte length (which may lie) followed by {@code rest}. */
    static byte[] lengthThen(int length, byte[] rest) {
        return ByteBuffer.allocate(4 + rest.length).putInt(length).put(rest).array();
    }

    /** Whether the server closed (or reset, or failed the TLS session of) the connection: no byte comes back. */
    static boolean closedByServer(Socket socket) throws IOException {
        try {
            return socket.getInputStream().read() == -1;
        } catch (IOException closedOrReset) {
            // SocketException for a reset, SSLException for a TLS alert: the server ended it either way.
            return true;
        }
    }
}
