package io.leasehold.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.proxy.config.ProxyConfig;
import io.leasehold.proxy.frontend.FrontendServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How the configured limits reach the Kafka listener. */
class ListenerLimitsTest {

    @Test
    void everyConfiguredClientLimitReachesTheListenerUnderItsOwnName() {
        ProxyConfig.Limits configured = new ProxyConfig.Limits(1_048_576, 50, Duration.ofSeconds(61), 5,
                Duration.ofSeconds(3), 7, Duration.ofSeconds(4), Duration.ofSeconds(6), 384L << 20, 40, 30, 900, 80,
                300, Duration.ofSeconds(90));

        assertThat(LeaseholdProxy.listenerLimits(configured)).isEqualTo(new FrontendServer.Limits(1_048_576, 50,
                Duration.ofSeconds(61), 5, Duration.ofSeconds(3), 7, Duration.ofSeconds(4), Duration.ofSeconds(6),
                40, 30, 900, 80, 300, Duration.ofSeconds(90)));
    }
}
