package io.leasehold.proxy.kafscale;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.time.Duration;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One client connection speaking the Kafka protocol with kafka-clients' generated classes, one
 * request at a time: the request is written in the version asked for, and the answer must arrive
 * within {@code answerWithin} and decode in that version.
 */
final class WireConnection implements AutoCloseable {
    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    WireConnection(String host, int port, Duration answerWithin) throws IOException {
        socket = new Socket(host, port);
        socket.setSoTimeout((int) answerWithin.toMillis());
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /**
     * Sends {@code request} as {@code api} v{@code version} and returns the answer.
     *
     * @throws java.net.SocketTimeoutException when no answer came in time
     * @throws java.io.EOFException when the other side closed the connection
     */
    AbstractResponse send(ApiKeys api, short version, ApiMessage request) throws IOException {
        int sent = ++correlationId;
        RequestHeader header = new RequestHeader(api, version, "version-matrix", sent);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.data().size(cache, header.headerVersion());
        int bodySize = request.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(4 + headerSize + bodySize);
        buffer.putInt(headerSize + bodySize);
        ByteBufferAccessor writer = new ByteBufferAccessor(buffer);
        header.data().write(writer, cache, header.headerVersion());
        request.write(writer, cache, version);
        out.write(buffer.array());
        out.flush();

        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        ByteBufferAccessor reader = new ByteBufferAccessor(ByteBuffer.wrap(frame));
        // ApiVersions answers always carry header v0, so that any client can read them.
        short headerVersion = api == ApiKeys.API_VERSIONS ? 0 : api.responseHeaderVersion(version);
        ResponseHeaderData responseHeader = new ResponseHeaderData(reader, headerVersion);
        if (responseHeader.correlationId() != sent) {
            throw new IOException("answer for correlation id " + responseHeader.correlationId() + ", expected " + sent);
        }
        return AbstractResponse.parseResponse(api, reader, version);
    }

    boolean isOpen() {
        return !socket.isClosed();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
