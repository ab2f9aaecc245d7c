package io.leasehold.proxy.exchange;

import io.netty.buffer.ByteBuf;
import org.apache.kafka.common.protocol.Errors;

/**
 * The capability of an API whose single-owner response, forwarded to the client as it came, is
 * checked for rejections by walking its error codes instead of decoding it (Produce): a response
 * that rejects nothing needs none of its other fields, and a decode costs the most while the
 * proxy's code is not yet compiled.
 */
public interface RejectionScan {

    /**
     * True if {@code response} (a whole frame from its response header on, in {@code version})
     * was read to its end and no partition in it carries {@code rejection}; false if one does, or
     * if the bytes do not fit the schema (the caller then decodes it, and reports what is wrong).
     */
    boolean rejectsNone(ByteBuf response, short version, Errors rejection);
}
