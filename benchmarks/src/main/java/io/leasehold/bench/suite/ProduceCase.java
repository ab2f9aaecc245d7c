package io.leasehold.bench.suite;

import io.leasehold.bench.load.ProducerWorkload;

/** A produce workload and the placement of the topic it writes to. */
public record ProduceCase(ProducerWorkload workload, Placement placement) {

    public String label() {
        return workload.label() + placement.labelSuffix();
    }

    /** The same case limited to {@code rate} records per second in total. */
    public ProduceCase atRate(double rate) {
        return new ProduceCase(workload.atRate(rate), placement);
    }
}
