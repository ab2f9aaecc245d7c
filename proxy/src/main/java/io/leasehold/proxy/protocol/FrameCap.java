package io.leasehold.proxy.protocol;

import io.netty.channel.Channel;

/**
 * A lower limit than {@code limits.maxFrameBytes} that applies to a connection for a while
 * (before it has authenticated, say). {@link KafkaFrameDecoder} checks it against each frame's
 * length prefix, before any of the frame is buffered.
 */
public interface FrameCap {
    /** No cap beyond the decoder's own maximum. */
    FrameCap NONE = new FrameCap() {
        @Override
        public int maxFrameBytes(Channel channel) {
            return Integer.MAX_VALUE;
        }

        @Override
        public String reason() {
            return "oversized";
        }

        @Override
        public String describe() {
            return "";
        }
    };

    /** The largest frame {@code channel} may send next. */
    int maxFrameBytes(Channel channel);

    /** The {@code leasehold_frames_rejected_total} reason for a frame over the cap. */
    String reason();

    /** When the cap applies, for the log line (e.g. "before SASL authentication"). */
    String describe();
}
