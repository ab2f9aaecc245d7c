package io.leasehold.bench.sizing;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Client connections that do what an idle Kafka client does first and then nothing: each sends
 * one ApiVersions request (serialised by kafka-clients' own request classes), waits for a
 * successful answer and stays open until {@link #close()}.
 */
public final class IdleConnections implements AutoCloseable {

    private static final short VERSION = 3;

    private final List<Socket> sockets = new ArrayList<>();

    /** Opens {@code count} connections to {@code host:port} one after another, each answered before the next. */
    public static IdleConnections open(String host, int port, int count) {
        IdleConnections connections = new IdleConnections();
        try {
            for (int i = 0; i < count; i++) {
                connections.sockets.add(connect(host, port, i));
            }
            return connections;
        } catch (RuntimeException e) {
            connections.close();
            throw e;
        }
    }

    public int size() {
        return sockets.size();
    }

    private static Socket connect(String host, int port, int index) {
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host, port), 10_000);
            socket.setSoTimeout(30_000);
            RequestHeader header = new RequestHeader(ApiKeys.API_VERSIONS, VERSION, "sizing-idle-" + index, index);
            ApiVersionsRequest request = new ApiVersionsRequest.Builder(new ApiVersionsRequestData()
                    .setClientSoftwareName("leasehold-sizing").setClientSoftwareVersion("1"), VERSION, VERSION)
                    .build(VERSION);
            ByteBuffer frame = request.serializeWithHeader(header);
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] answer = new byte[in.readInt()];
            in.readFully(answer);
            ByteBuffer buffer = ByteBuffer.wrap(answer);
            ResponseHeader.parse(buffer, ApiKeys.API_VERSIONS.responseHeaderVersion(VERSION));
            Errors error = Errors.forCode(ApiVersionsResponse.parse(new ByteBufferAccessor(buffer), VERSION).data().errorCode());
            if (error != Errors.NONE) {
                throw new IllegalStateException("ApiVersions on idle connection " + index + " answered " + error);
            }
            return socket;
        } catch (IOException e) {
            closeQuietly(socket);
            throw new UncheckedIOException("idle connection " + index + " to " + host + ":" + port + " failed", e);
        } catch (RuntimeException e) {
            closeQuietly(socket);
            throw e;
        }
    }

    @Override
    public void close() {
        sockets.forEach(IdleConnections::closeQuietly);
        sockets.clear();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // Closing at the end of a measurement: nothing is left to save.
        }
    }
}
