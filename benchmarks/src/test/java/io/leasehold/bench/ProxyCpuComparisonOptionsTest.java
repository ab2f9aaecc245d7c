package io.leasehold.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.testing.JavaCommand;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the runtime and AOT cache options of {@code scripts/bench-proxy-cpu} accept and refuse. */
class ProxyCpuComparisonOptionsTest {

    @Test
    void runsTheCurrentBuildOnThisRuntimeUnlessAnotherIsNamed() {
        assertThat(ProxyCpuComparison.parse(new String[] {"--fresh", "60"}, null).proxyJava())
                .isEqualTo(JavaCommand.currentJavaHome());
        String home = JavaCommand.currentJavaHome().toString();
        assertThat(ProxyCpuComparison.parse(new String[] {"--fresh", "60", "--proxy-java", home}, null).proxyJava())
                .isEqualTo(Path.of(home));
    }

    @Test
    void refusesARuntimeWithoutJava() {
        assertThatThrownBy(() -> ProxyCpuComparison.parse(new String[] {"--fresh", "60", "--proxy-java", "/nonexistent"},
                null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--proxy-java")
                .hasMessageContaining("/nonexistent");
    }

    @Test
    void trainsAnAotCacheOnlyForFreshStarts() {
        assertThat(ProxyCpuComparison.parse(new String[] {"--fresh", "60", "--aot-training", "45"}, null).aotTraining())
                .isEqualTo(Duration.ofSeconds(45));
        assertThat(ProxyCpuComparison.parse(new String[] {"--fresh", "60"}, null).aotTraining()).isNull();
        assertThatThrownBy(() -> ProxyCpuComparison.parse(new String[] {"--aot-training", "45", "--baseline",
                JavaCommand.currentJavaHome().resolve("bin").resolve("java").toString()}, null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--aot-training needs --fresh");
    }
}
