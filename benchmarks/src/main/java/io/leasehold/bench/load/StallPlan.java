package io.leasehold.bench.load;

import java.time.Duration;

/**
 * The owner-stall measurement: producers at a fixed total rate and one consumer over a topic
 * spread over every owner; after {@code warmup} and a {@code before} window, one owner is
 * SIGSTOPped for {@code stall}, then resumed.
 *
 * @param rounds          stall runs per path
 * @param producers       producers, each writing every partition in turn
 * @param recordsPerSecond total send rate of all producers
 * @param recordBytes     record size
 * @param warmup          traffic before the before-window starts
 * @param before          the window the stall is compared with
 * @param stall           how long the owner stays stopped
 */
public record StallPlan(int rounds, int producers, int recordsPerSecond, int recordBytes, Duration warmup,
        Duration before, Duration stall) {
}
