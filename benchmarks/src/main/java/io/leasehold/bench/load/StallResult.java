package io.leasehold.bench.load;

/**
 * What one owner-stall run saw, in records per second: the other owners' partitions before the
 * stall and while the owner was stopped, for the producers (acknowledged) and the consumer
 * (received); the stopped owner's own partitions while stopped; and failed sends.
 */
public record StallResult(double produceBefore, double produceDuring, double consumeBefore, double consumeDuring,
        double stalledOwnerProduceDuring, long errors, String firstError) {

    /** Produce throughput of the other owners' partitions during the stall divided by before it. */
    public double produceKept() {
        return produceDuring / produceBefore;
    }

    /** Consume throughput of the other owners' partitions during the stall divided by before it. */
    public double consumeKept() {
        return consumeDuring / consumeBefore;
    }
}
