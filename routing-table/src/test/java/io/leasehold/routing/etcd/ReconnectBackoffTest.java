package io.leasehold.routing.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReconnectBackoffTest {

    @Test
    void doublesUpToTheCapAndStartsOverAfterReset() {
        ReconnectBackoff backoff = new ReconnectBackoff(Duration.ofMillis(100), Duration.ofSeconds(3));
        assertThat(backoff.next()).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.next()).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.next()).isEqualTo(Duration.ofMillis(400));
        for (int i = 0; i < 100; i++) {
            assertThat(backoff.next()).isLessThanOrEqualTo(Duration.ofSeconds(3));
        }
        assertThat(backoff.next()).isEqualTo(Duration.ofSeconds(3));
        backoff.reset();
        assertThat(backoff.next()).isEqualTo(Duration.ofMillis(100));
    }
}
