package io.leasehold.proxy.exchange;

import io.leasehold.proxy.protocol.KafkaMessages;
import io.leasehold.proxy.protocol.MalformedRequestException;
import io.leasehold.proxy.protocol.RequestFrame;
import io.leasehold.proxy.versions.VersionBridge;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A whole client request on its way to the backends: the client's own bytes when the backends
 * support its version, otherwise re-encoded once in the version the {@link VersionBridge} picked.
 * Release it when the exchange is over (the client's frame is released by its owner).
 */
public final class OutgoingRequest {
    private final RequestFrame frame;
    private final short version;
    private final ByteBuf reencoded;

    private OutgoingRequest(RequestFrame frame, short version, ByteBuf reencoded) {
        this.frame = frame;
        this.version = version;
        this.reencoded = reencoded;
    }

    /**
     * Prepares {@code frame} for the backends {@code bridge} describes.
     *
     * @param body the frame's decoded body if the caller has it, else null (decoded only when bridging)
     * @throws UnsupportedVersionException when the client set a field the backend version lacks
     */
    public static OutgoingRequest prepare(ByteBufAllocator alloc, RequestFrame frame, ApiMessage body,
            VersionBridge bridge)
            throws MalformedRequestException {
        short target = bridge.target(frame.apiKey(), frame.version());
        if (target == frame.version()) {
            return new OutgoingRequest(frame, target, null);
        }
        ApiMessage decoded = body != null ? body : frame.decodeBody();
        return new OutgoingRequest(frame, target, VersionBridge.encodeRequest(alloc, frame, target, decoded));
    }

    /** The version the backends are spoken to in. */
    public short version() {
        return version;
    }

    /** The bytes to send, retained for one send. */
    public ByteBuf retained() {
        return reencoded == null ? frame.retainedFrame() : reencoded.retainedDuplicate();
    }

    /** The backend's answer as the client expects it: its version and correlation id; takes ownership of {@code response}. */
    public ByteBuf toClient(ByteBufAllocator alloc, ByteBuf response) {
        if (reencoded == null) {
            return KafkaMessages.withResponseCorrelationId(response, frame.correlationId());
        }
        return VersionBridge.convertResponse(alloc, response, frame.apiKey(), version, frame.version(),
                frame.correlationId());
    }

    public void release() {
        if (reencoded != null) {
            reencoded.release();
        }
    }
}
