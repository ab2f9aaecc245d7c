package io.leasehold.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The windowed table of a fixed two-round input: medians, ranges, percentages and round-by-round ratios. */
class WindowedCpuTableTest {

    @Test
    void rendersMediansPerWindowAndRatiosRoundByRound() {
        WindowedCpuTable table = new WindowedCpuTable(List.of("L", "K"), List.of(new WindowedCpuTable.Ratio("L", "K")));
        table.add("0-30 s", "L", new WindowFigures(100, 6.0, 0.5));
        table.add("0-30 s", "K", new WindowFigures(50, 3.0, 0.25));
        table.add("all", "L", new WindowFigures(80, 4.0, 0.2));
        table.add("all", "K", new WindowFigures(100, 4.0, 0.1));
        table.add("0-30 s", "L", new WindowFigures(60, 2.0, 0.3));
        table.add("0-30 s", "K", new WindowFigures(60, 4.0, Double.NaN));

        assertThat(table.render()).isEqualTo("""
                | window | L MB/s | K MB/s | L CPU s/GB | K CPU s/GB | L compiler % | K compiler % | L/K MB/s | L/K CPU s/GB |
                |---|---|---|---|---|---|---|---|---|
                | 0-30 s | 80.0 (60.0..100.0) | 55.0 (50.0..60.0) | 4.00 (2.00..6.00) | 3.50 (3.00..4.00) \
                | 40.0 (30.0..50.0) | 25.0 | 1.50 (1.00..2.00) | 1.25 (0.50..2.00) |
                | all | 80.0 | 100.0 | 4.00 | 4.00 | 20.0 | 10.0 | 0.80 | 1.00 |
                """);
    }

    @Test
    void refusesARatioOfAProxyItDoesNotShow() {
        assertThatThrownBy(() -> new WindowedCpuTable(List.of("L"), List.of(new WindowedCpuTable.Ratio("L", "K"))))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
