package io.leasehold.bench.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Differences between two readings of a process's threads, per thread group. */
class ThreadCpuTest {

    private static final String C2 = CompilerShare.C2_THREADS;

    @Test
    void sumsEachGroupsThreadsAndCountsNewThreadsInFull() {
        ThreadCpu earlier = ThreadCpu.of(Map.of(1L, new ThreadCpu.Task(C2, 2.0), 2L, new ThreadCpu.Task("GC Thread#", 1.0)));
        ThreadCpu later = ThreadCpu.of(Map.of(1L, new ThreadCpu.Task(C2, 5.0), 2L, new ThreadCpu.Task("GC Thread#", 1.5),
                3L, new ThreadCpu.Task(C2, 0.75)));

        Map<String, Double> delta = later.since(earlier);

        assertThat(delta.get(C2)).isCloseTo(3.75, within(1e-9));
        assertThat(delta.get("GC Thread#")).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void aGroupThatLostAThreadHasNoKnownFigure() {
        // A retired compiler thread's CPU time leaves with it: a sum of the live ones would look smaller.
        ThreadCpu earlier = ThreadCpu.of(Map.of(1L, new ThreadCpu.Task(C2, 2.0), 4L, new ThreadCpu.Task(C2, 3.0),
                2L, new ThreadCpu.Task("GC Thread#", 1.0)));
        ThreadCpu later = ThreadCpu.of(Map.of(1L, new ThreadCpu.Task(C2, 6.0), 2L, new ThreadCpu.Task("GC Thread#", 1.5)));

        Map<String, Double> delta = later.since(earlier);

        assertThat(delta.get(C2)).isNaN();
        assertThat(delta.get("GC Thread#")).isCloseTo(0.5, within(1e-9));
        assertThat(CompilerShare.of(delta, 10.0).share()).isNaN();
    }

    @Test
    void tableLeavesAGroupWithoutAFigureOutOfTheSharesAndNamesIt() {
        String table = ThreadCpu.table(Map.of("eventloop-", 3.0, "GC Thread#", 1.0, C2, Double.NaN), 10);

        assertThat(table).contains("| `eventloop-` | 3.0 | 75.0 % |", "| `GC Thread#` | 1.0 | 25.0 % |")
                .contains("Not counted, a thread of theirs ended during the run: `" + C2 + "`")
                .doesNotContain("NaN");
    }
}
