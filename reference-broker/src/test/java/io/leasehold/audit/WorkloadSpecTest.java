package io.leasehold.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadSpecTest {

    @Test
    void producersAreSpreadOverBootstrapAddresses() {
        WorkloadSpec spec = WorkloadSpec.builder("t", List.of("a:1", "b:2")).producers(3).build();

        assertThat(spec.bootstrapFor(0)).isEqualTo("a:1");
        assertThat(spec.bootstrapFor(1)).isEqualTo("b:2");
        assertThat(spec.bootstrapFor(2)).isEqualTo("a:1");
        assertThat(spec.producerId(2)).isEqualTo("p2");
    }

    @Test
    void idempotenceWithoutAcksAllIsRejected() {
        assertThatThrownBy(() -> WorkloadSpec.builder("t", List.of("a:1")).idempotence(true).acks("1").build())
                .hasMessageContaining("idempotence needs acks=all");
    }

    @Test
    void emptyBootstrapIsRejected() {
        assertThatThrownBy(() -> WorkloadSpec.builder("t", List.of()).build())
                .hasMessageContaining("bootstrapAddresses must not be empty");
    }
}
