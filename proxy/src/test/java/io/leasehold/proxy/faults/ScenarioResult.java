package io.leasehold.proxy.faults;

import io.leasehold.audit.AuditVerdict;
import io.leasehold.audit.WorkloadResult;
import java.time.Duration;

/**
 * One row of the fault report: what a scenario's producers did and what the offset auditor found.
 *
 * @param measured the scenario's own figure (e.g. time until the partitions were writable again)
 */
record ScenarioResult(String scenario, WorkloadResult workload, AuditVerdict verdict, Duration elapsed,
                      String measured) {

    /** The markdown table row. */
    String markdownRow() {
        return String.format("| %s | %d | %d | %d | %d | %d | %d | %d | %.1f s | %s |", scenario, verdict.produced(),
                verdict.acked(), verdict.failed(), verdict.found(), verdict.duplicates(), verdict.ackedMissing(),
                verdict.overlaps(), elapsed.toMillis() / 1000.0, measured);
    }

    /** The header of the markdown table. */
    static String markdownHeader() {
        return "| scenario | produced | acked | failed | found | duplicated | acked missing | overlapping | time | measured |\n"
                + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|";
    }
}
