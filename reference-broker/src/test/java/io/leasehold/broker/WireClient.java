package io.leasehold.broker;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Sends single requests to one broker and reads the answers, for tests that must see one
 * broker's exact answer (a real client would retry elsewhere). Built on kafka-clients' classes.
 */
final class WireClient implements AutoCloseable {

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private int correlationId;

    WireClient(int port) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(30_000);
        out = new DataOutputStream(socket.getOutputStream());
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends the request and returns the response body. */
    <T extends ApiMessage> T send(ApiKeys api, int version, ApiMessage request, Class<T> responseType) throws IOException {
        write(api, (short) version, request);
        return responseType.cast(read(api, (short) version));
    }

    /** Sends a request that gets no response (Produce with acks=0). */
    void sendOneWay(ApiKeys api, int version, ApiMessage request) throws IOException {
        write(api, (short) version, request);
    }

    /** Sends the request and reads the body in {@code responseVersion} (ApiVersions errors come back in v0). */
    <T extends ApiMessage> T send(ApiKeys api, int version, ApiMessage request, int responseVersion, Class<T> responseType)
            throws IOException {
        write(api, (short) version, request);
        return responseType.cast(read(api, (short) responseVersion));
    }

    /** Writes bytes as they are, for malformed-input tests. */
    void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    /** Whether the broker closed the connection (the next read sees end of stream). */
    boolean closedByBroker() throws IOException {
        return in.read() < 0;
    }

    private void write(ApiKeys api, short version, ApiMessage request) throws IOException {
        RequestHeader header = new RequestHeader(api, version, "wire-test", ++correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.data().size(cache, header.headerVersion());
        int bodySize = request.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(4 + headerSize + bodySize);
        buffer.putInt(headerSize + bodySize);
        ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
        header.data().write(accessor, cache, header.headerVersion());
        request.write(accessor, cache, version);
        out.write(buffer.array());
        out.flush();
    }

    private ApiMessage read(ApiKeys api, short version) throws IOException {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        short headerVersion = api == ApiKeys.API_VERSIONS ? 0 : api.responseHeaderVersion(version);
        ResponseHeader header = ResponseHeader.parse(buffer, headerVersion);
        if (header.correlationId() != correlationId) {
            throw new IOException("response for correlation id " + header.correlationId() + ", expected " + correlationId);
        }
        return AbstractResponse.parseResponse(api, new ByteBufferAccessor(buffer), version).data();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
