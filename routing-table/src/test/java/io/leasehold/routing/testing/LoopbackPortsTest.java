package io.leasehold.routing.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Arrays;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class LoopbackPortsTest {

    /** Far above the blocks of the first forks, so these tests do not take ports a sibling fork hands out. */
    private static final int SCRATCH = 31_000;

    @Test
    void twoForksHandOutPortsFromDisjointBlocksBelowTheEphemeralRange() {
        PortBlock first = LoopbackPorts.forkBlock(1, 32_768, 0);
        PortBlock second = LoopbackPorts.forkBlock(2, 32_768, 0);
        int[] fromFirst = first.take(20);
        int[] fromSecond = second.take(20);

        assertThat(Arrays.stream(fromFirst).boxed()).allMatch(port -> !second.contains(port) && port < 32_768);
        assertThat(Arrays.stream(fromSecond).boxed()).allMatch(port -> !first.contains(port) && port < 32_768);
        assertThat(IntStream.concat(Arrays.stream(fromFirst), Arrays.stream(fromSecond)).distinct().count()).isEqualTo(40);
    }

    @Test
    void aSmallerEphemeralRangeMovesNoForkIntoIt() {
        PortBlock block = LoopbackPorts.forkBlock(5, 20_000, 0);

        assertThat(Arrays.stream(block.take(LoopbackPorts.BLOCK_SIZE - 10)).boxed()).allMatch(port -> port >= 10_000 && port < 20_000);
    }

    @Test
    void separateCallsNeverGetTheSamePortUntilTheBlockWraps() {
        PortBlock block = new PortBlock(SCRATCH, 50, 17);

        int[] ports = IntStream.range(0, 50).map(i -> block.take(1)[0]).toArray();

        assertThat(Arrays.stream(ports).distinct().count()).as("distinct ports of a 50-port block").isEqualTo(50);
    }

    @Test
    void aPortSomeoneListensOnIsSkipped() throws Exception {
        try (ServerSocket held = new ServerSocket(SCRATCH + 100, 1, InetAddress.getLoopbackAddress())) {
            PortBlock block = new PortBlock(held.getLocalPort(), 10, 0);

            assertThat(block.take(1)[0]).isEqualTo(held.getLocalPort() + 1);
        }
    }

    @Test
    void aConsecutiveRunStartsAfterAHeldPortAndDoesNotWrapPastTheBlock() throws Exception {
        try (ServerSocket held = new ServerSocket(SCRATCH + 202, 1, InetAddress.getLoopbackAddress())) {
            PortBlock block = new PortBlock(held.getLocalPort() - 2, 10, 0);

            assertThat(block.consecutive(3)).isEqualTo(SCRATCH + 203);
            assertThat(block.consecutive(3)).isEqualTo(SCRATCH + 206);
            assertThat(block.consecutive(3)).as("8..10 would leave the block; 0..2 holds the taken port")
                    .isEqualTo(SCRATCH + 203);
        }
    }
}
