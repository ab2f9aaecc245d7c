package io.leasehold.proxy.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * Encodes and decodes Kafka messages between Netty buffers and the kafka-clients generated
 * classes. Buffers produced here carry no length prefix (the pipeline's prepender adds it).
 * Encoding writes straight into a pooled direct buffer; a message whose record sets were decoded
 * from other frames with {@link RecordRegions} (a merged Fetch answer from brokers' frames, a
 * Produce split by owner from the client's frame) is encoded instead around slices of those
 * frames, so its record bytes are never copied in the proxy.
 */
public final class KafkaMessages {
    private KafkaMessages() {
    }

    /**
     * Encodes a request with a placeholder correlation id (the backend connection sets the real one).
     */
    public static ByteBuf encodeRequest(ByteBufAllocator alloc, ApiKeys api, short version, String clientId,
                                        ApiMessage body) {
        return encode(alloc, requestHeader(api, version, clientId), api.requestHeaderVersion(version), body, version);
    }

    /**
     * Encodes a request as {@link #encodeRequest(ByteBufAllocator, ApiKeys, short, String, ApiMessage)}
     * does, byte for byte, but every record set noted in {@code regions} is a retained slice of
     * the frame it was decoded from: the result keeps those frames alive until released.
     */
    public static ByteBuf encodeRequest(ByteBufAllocator alloc, ApiKeys api, short version, String clientId,
                                        ApiMessage body, RecordRegions regions) {
        return encode(alloc, requestHeader(api, version, clientId), api.requestHeaderVersion(version), body, version,
                regions);
    }

    /** A request header with a placeholder correlation id. */
    private static RequestHeaderData requestHeader(ApiKeys api, short version, String clientId) {
        return new RequestHeaderData()
                .setRequestApiKey(api.id)
                .setRequestApiVersion(version)
                .setClientId(clientId)
                .setCorrelationId(0);
    }

    /** Encodes a response in the client's version, with the client's correlation id. */
    public static ByteBuf encodeResponse(ByteBufAllocator alloc, ApiKeys api, short version, int correlationId,
                                         ApiMessage body) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        return encode(alloc, header, api.responseHeaderVersion(version), body, version);
    }

    /**
     * Encodes a response as {@link #encodeResponse(ByteBufAllocator, ApiKeys, short, int, ApiMessage)}
     * does, byte for byte, but every record set noted in {@code regions} is a retained slice of
     * the frame it was decoded from, not a copy: the result keeps those frames alive until released.
     */
    public static ByteBuf encodeResponse(ByteBufAllocator alloc, ApiKeys api, short version, int correlationId,
                                         ApiMessage body, RecordRegions regions) {
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        return encode(alloc, header, api.responseHeaderVersion(version), body, version, regions);
    }

    private static ByteBuf encode(ByteBufAllocator alloc, ApiMessage header, short headerVersion, ApiMessage body,
                                  short version, RecordRegions regions) {
        if (regions.isEmpty()) {
            return encode(alloc, header, headerVersion, body, version);
        }
        ObjectSerializationCache cache = new ObjectSerializationCache();
        // Sizing fills the cache that writing reads (sizes of nested structures and strings).
        header.size(cache, headerVersion);
        body.size(cache, version);
        SlicingWriter out = new SlicingWriter(alloc, regions);
        try {
            header.write(out, cache, headerVersion);
            body.write(out, cache, version);
            return out.finish();
        } catch (RuntimeException e) {
            out.discard();
            throw e;
        }
    }

    private static ByteBuf encode(ByteBufAllocator alloc, ApiMessage header, short headerVersion, ApiMessage body,
                                  short version) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int size = header.size(cache, headerVersion) + body.size(cache, version);
        ByteBuf buf = alloc.directBuffer(size);
        try {
            ByteBufferAccessor out = new ByteBufferAccessor(buf.nioBuffer(buf.writerIndex(), size));
            header.write(out, cache, headerVersion);
            body.write(out, cache, version);
            buf.writerIndex(buf.writerIndex() + size);
            return buf;
        } catch (RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    /**
     * Decodes a backend response frame (header + body). Record sets in the result are views of
     * {@code frame}: keep it retained until the result has been encoded again.
     */
    @SuppressWarnings("unchecked")
    public static <T extends ApiMessage> T decodeResponse(ByteBuf frame, ApiKeys api, short version) {
        ApiMessage message = ApiMessageType.fromApiKey(api.id).newResponse();
        message.read(new ByteBufferAccessor(responseBody(frame, api, version)), version);
        return (T) message;
    }

    /**
     * Decodes a backend response frame as {@link #decodeResponse(ByteBuf, ApiKeys, short)} does, and
     * notes in {@code regions} where each record set lies in {@code frame}.
     */
    @SuppressWarnings("unchecked")
    public static <T extends ApiMessage> T decodeResponse(ByteBuf frame, ApiKeys api, short version,
                                                          RecordRegions regions) {
        ApiMessage message = ApiMessageType.fromApiKey(api.id).newResponse();
        ByteBuffer nio = frame.nioBuffer();
        int frameIndexAtZero = frame.readerIndex() - nio.position();
        ResponseHeader.parse(nio, api.responseHeaderVersion(version));
        message.read(new RecordNotingReader(nio, frameIndexAtZero, frame, regions), version);
        return (T) message;
    }

    /** A view of a response frame's body, after its header. */
    public static ByteBuffer responseBody(ByteBuf frame, ApiKeys api, short version) {
        ByteBuffer nio = frame.nioBuffer();
        ResponseHeader.parse(nio, api.responseHeaderVersion(version));
        return nio;
    }

    /** The correlation id of a response frame. */
    public static int responseCorrelationId(ByteBuf frame) {
        return frame.getInt(frame.readerIndex());
    }

    /** Rewrites a forwarded response's correlation id to the client's, in place. */
    public static ByteBuf withResponseCorrelationId(ByteBuf frame, int correlationId) {
        frame.setInt(frame.readerIndex(), correlationId);
        return frame;
    }

    /** Sets a request frame's correlation id in place. */
    public static ByteBuf withRequestCorrelationId(ByteBuf frame, int correlationId) {
        frame.setInt(frame.readerIndex() + RequestFrame.correlationIdOffset(), correlationId);
        return frame;
    }
}
