package io.leasehold.broker.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/** Serializes a response frame: length, response header in the API's header version, body. */
public final class ResponseEncoder {

    private ResponseEncoder() {
    }

    public static ByteBuf encode(ApiKeys api, short version, int correlationId, ApiMessage body) {
        // ApiVersions answers in header v0 whatever the request version, so that a client that
        // sent a version we do not serve can still read the error and the versions we do.
        short headerVersion = api == ApiKeys.API_VERSIONS ? 0 : api.responseHeaderVersion(version);
        ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        ObjectSerializationCache cache = new ObjectSerializationCache();
        int headerSize = header.size(cache, headerVersion);
        int bodySize = body.size(cache, version);
        ByteBuffer buffer = ByteBuffer.allocate(4 + headerSize + bodySize);
        buffer.putInt(headerSize + bodySize);
        ByteBufferAccessor accessor = new ByteBufferAccessor(buffer);
        header.write(accessor, cache, headerVersion);
        body.write(accessor, cache, version);
        buffer.flip();
        return Unpooled.wrappedBuffer(buffer);
    }
}
