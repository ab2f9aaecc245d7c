package io.leasehold.proxy.authorization.oracle;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * One blocking connection that logs in with SASL PLAIN and then sends one request at a time,
 * built from kafka-clients' generated message classes, and reads its answer. Small on purpose:
 * the oracle test must send exactly the request it built, in exactly the version it chose.
 */
final class SaslWireClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private int correlationId;

    private SaslWireClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = new DataOutputStream(socket.getOutputStream());
    }

    /**
     * Connects to {@code host:port} and logs in as {@code user}; fails if the login is refused.
     * Any later answer that takes longer than {@code answerWithin} fails its {@link #send}.
     */
    static SaslWireClient login(String host, int port, String user, String password, Duration answerWithin)
            throws IOException {
        Socket socket = new Socket(host, port);
        socket.setSoTimeout((int) answerWithin.toMillis());
        SaslWireClient client = new SaslWireClient(socket);
        try {
            SaslHandshakeResponseData handshake = (SaslHandshakeResponseData) client.send(ApiKeys.SASL_HANDSHAKE,
                    (short) 1, new SaslHandshakeRequestData().setMechanism("PLAIN")).data();
            if (handshake.errorCode() != Errors.NONE.code()) {
                throw new IOException("SASL handshake refused: " + Errors.forCode(handshake.errorCode()));
            }
            byte[] token = ("\0" + user + "\0" + password).getBytes(StandardCharsets.UTF_8);
            SaslAuthenticateResponseData auth = (SaslAuthenticateResponseData) client.send(ApiKeys.SASL_AUTHENTICATE,
                    (short) 2, new SaslAuthenticateRequestData().setAuthBytes(token)).data();
            if (auth.errorCode() != Errors.NONE.code()) {
                throw new IOException("SASL login of " + user + " refused: " + auth.errorMessage());
            }
            return client;
        } catch (IOException | RuntimeException e) {
            client.close();
            throw e;
        }
    }

    /** Sends {@code request} as {@code api} version {@code version} and returns the parsed answer. */
    AbstractResponse send(ApiKeys api, short version, ApiMessage request) throws IOException {
        int id = ++correlationId;
        ByteBuf frame = KafkaMessages.encodeRequest(UnpooledByteBufAllocator.DEFAULT, api, version, "leasehold-oracle",
                request);
        try {
            KafkaMessages.withRequestCorrelationId(frame, id);
            byte[] bytes = new byte[frame.readableBytes()];
            frame.getBytes(frame.readerIndex(), bytes);
            out.writeInt(bytes.length);
            out.write(bytes);
            out.flush();
        } finally {
            frame.release();
        }
        byte[] answer = new byte[in.readInt()];
        in.readFully(answer);
        ByteBuffer buffer = ByteBuffer.wrap(answer);
        ResponseHeader header = ResponseHeader.parse(buffer, api.responseHeaderVersion(version));
        if (header.correlationId() != id) {
            throw new IOException("answer to correlation id " + header.correlationId() + ", expected " + id);
        }
        return AbstractResponse.parseResponse(api, new ByteBufferAccessor(buffer), version);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
