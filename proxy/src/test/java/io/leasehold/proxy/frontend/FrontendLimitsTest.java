package io.leasehold.proxy.frontend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What {@link FrontendServer.Limits#builder()} fills in for the limits a caller leaves unset. */
class FrontendLimitsTest {
    private static final Duration IDLE = Duration.ofSeconds(7);
    private static final Duration HANDSHAKE = Duration.ofSeconds(3);

    @Test
    void unsetDeadlinesFollowTheIdleTimeoutAndUnsetCountsAreUnbounded() {
        FrontendServer.Limits limits = FrontendServer.Limits.builder()
                .idleTimeout(IDLE).tlsHandshakeTimeout(HANDSHAKE).build();

        assertThat(limits).isEqualTo(new FrontendServer.Limits(Integer.MAX_VALUE, Integer.MAX_VALUE, IDLE,
                Integer.MAX_VALUE, HANDSHAKE, Integer.MAX_VALUE, IDLE, IDLE, Integer.MAX_VALUE, Integer.MAX_VALUE,
                Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE, null));
    }

    @Test
    void setDeadlinesAreKeptApartFromTheIdleTimeout() {
        FrontendServer.Limits limits = FrontendServer.Limits.builder().idleTimeout(IDLE).tlsHandshakeTimeout(HANDSHAKE)
                .firstRequestTimeout(Duration.ofSeconds(1)).frameCompletionTimeout(Duration.ofSeconds(2)).build();

        assertThat(limits.firstRequestTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(limits.frameCompletionTimeout()).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void limitsWithoutAnIdleTimeoutAreRefused() {
        assertThatThrownBy(() -> FrontendServer.Limits.builder().tlsHandshakeTimeout(HANDSHAKE).build())
                .isInstanceOf(NullPointerException.class).hasMessage("idleTimeout");
    }
}
