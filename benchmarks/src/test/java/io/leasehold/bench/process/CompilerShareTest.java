package io.leasehold.bench.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The compiler share counts the C1 and C2 thread groups, nothing else, against the whole process. */
class CompilerShareTest {

    @Test
    void countsBothCompilersAgainstTheWholeProcess() {
        CompilerShare share = CompilerShare.of(Map.of(CompilerShare.C2_THREADS, 3.0, CompilerShare.C1_THREADS, 1.0,
                "GC Thread#", 2.0, "eventloop-", 4.0), 10.0);

        assertThat(share.compilerSeconds()).isCloseTo(4.0, within(1e-9));
        assertThat(share.share()).isCloseTo(0.4, within(1e-9));
    }

    @Test
    void isZeroWhenNoCompilerThreadRan() {
        assertThat(CompilerShare.of(Map.of("eventloop-", 4.0), 4.0).share()).isZero();
    }

    @Test
    void isUnknownWithoutProcessCpuOrWhenACompilerThreadEndedInTheInterval() {
        assertThat(CompilerShare.of(Map.of(CompilerShare.C2_THREADS, 1.0), 0.0).share()).isNaN();
        assertThat(CompilerShare.of(Map.of(CompilerShare.C2_THREADS, Double.NaN), 5.0).share()).isNaN();
    }
}
