package io.leasehold.proxy.protocol;

import io.netty.handler.codec.TooLongFrameException;

/** A frame whose length prefix is over a connection's {@link FrameCap}; nothing of it was buffered. */
public final class FrameCapExceededException extends TooLongFrameException {
    private final String reason;

    FrameCapExceededException(String reason, String message) {
        super(message);
        this.reason = reason;
    }

    /** The {@code leasehold_frames_rejected_total} reason. */
    public String reason() {
        return reason;
    }
}
