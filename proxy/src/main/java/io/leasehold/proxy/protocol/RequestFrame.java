package io.leasehold.proxy.protocol;

import io.leasehold.proxy.logging.ClientText;
import io.netty.buffer.ByteBuf;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * One client request: its parsed header plus the whole frame (without the length prefix).
 * The body is decoded only when a router needs it; decoded record sets are views of the frame,
 * so the frame stays retained until the request is finished, and {@link #recordRegions()} knows
 * where each lies, so that a request split by owner carries them as slices of the frame.
 */
public final class RequestFrame extends AbstractReferenceCounted {
    private static final int CORRELATION_ID_OFFSET = 4;

    private final ByteBuf frame;
    private final RequestHeader header;
    private final int headerSize;
    private final RequestBounds bounds;
    private final RecordRegions recordRegions = new RecordRegions();

    private RequestFrame(ByteBuf frame, RequestHeader header, int headerSize, RequestBounds bounds) {
        this.frame = frame;
        this.header = header;
        this.headerSize = headerSize;
        this.bounds = bounds;
    }

    /** Parses the header of a frame whose body is bounded only by its size; see {@link #parse(ByteBuf, RequestBounds)}. */
    public static RequestFrame parse(ByteBuf frame) throws MalformedRequestException {
        return parse(frame, RequestBounds.NONE);
    }

    /**
     * Parses the header of {@code frame}; takes ownership of the frame on success only.
     *
     * @param bounds what the body may hold, checked when it is decoded
     * @throws MalformedRequestException when the API key is unknown or the header is truncated
     */
    public static RequestFrame parse(ByteBuf frame, RequestBounds bounds) throws MalformedRequestException {
        int length = frame.readableBytes();
        if (length < 8) {
            throw new MalformedRequestException("malformed",
                    "request frame of " + length + " bytes is shorter than the 8-byte fixed header", null);
        }
        short apiKeyId = frame.getShort(frame.readerIndex());
        short version = frame.getShort(frame.readerIndex() + 2);
        if (!ApiKeys.hasId(apiKeyId)) {
            throw new MalformedRequestException("unknown_api_key",
                    "unknown API key " + apiKeyId + " (version " + version + ") in a " + length + "-byte frame", null);
        }
        ByteBuffer nio = frame.nioBuffer();
        int start = nio.position();
        try {
            RequestHeader header = RequestHeader.parse(nio);
            return new RequestFrame(frame, header, nio.position() - start, bounds);
        } catch (RuntimeException e) {
            throw new MalformedRequestException("malformed", "cannot read the " + ApiKeys.forId(apiKeyId).name
                    + " v" + version + " request header in a " + length + "-byte frame: " + e.getMessage(), e);
        }
    }

    public RequestHeader header() {
        return header;
    }

    public ApiKeys apiKey() {
        return header.apiKey();
    }

    public short version() {
        return header.apiVersion();
    }

    public int correlationId() {
        return header.correlationId();
    }

    /**
     * Decodes the body with the kafka-clients generated class for this API and version.
     *
     * @throws MalformedRequestException when the body does not parse (truncated, corrupt) or
     *                                   holds more than the frame's {@link RequestBounds} allow
     */
    @SuppressWarnings("unchecked")
    public <T extends ApiMessage> T decodeBody() throws MalformedRequestException {
        ApiMessage message = ApiMessageType.fromApiKey(apiKey().id).newRequest();
        int bodyLength = frame.readableBytes() - headerSize;
        int bodyStart = frame.readerIndex() + headerSize;
        ByteBuffer body = body();
        try {
            message.read(new RecordNotingReader(body, bodyStart - body.position(), frame, recordRegions), version());
        } catch (RuntimeException e) {
            throw new MalformedRequestException("malformed", "cannot read the body of " + apiKey().name + " v"
                    + version() + " (correlation id " + correlationId() + ", " + bodyLength + " body bytes): "
                    + e, e);
        }
        bounds.check(message, apiKey().name + " v" + version() + " (correlation id " + correlationId() + ")");
        return (T) message;
    }

    /** Where the record sets of the decoded bodies lie in this frame. */
    public RecordRegions recordRegions() {
        return recordRegions;
    }

    /** A view of the body bytes (no copy). */
    public ByteBuffer body() {
        return frame.nioBuffer(frame.readerIndex() + headerSize, frame.readableBytes() - headerSize);
    }

    /**
     * The original frame bytes, retained, for forwarding unchanged; the backend connection
     * overwrites the correlation id in place before writing.
     */
    public ByteBuf retainedFrame() {
        return frame.retainedDuplicate();
    }

    /** Offset of the correlation id inside every request frame (after api key and version). */
    public static int correlationIdOffset() {
        return CORRELATION_ID_OFFSET;
    }

    @Override
    protected void deallocate() {
        frame.release();
    }

    @Override
    public ReferenceCounted touch(Object hint) {
        frame.touch(hint);
        return this;
    }

    @Override
    public String toString() {
        return apiKey().name + " v" + version() + " correlationId=" + correlationId() + " clientId="
                + ClientText.escape(header.clientId());
    }
}
