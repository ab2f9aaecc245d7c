package io.leasehold.proxy.backend;

import io.netty.buffer.ByteBuf;

/**
 * A piece of a streamed response frame as it came off the broker's socket. The first piece
 * starts with the frame's 4-byte length and holds at least the correlation id after it.
 */
record ResponseChunk(ByteBuf bytes, boolean first, boolean last) {
}
