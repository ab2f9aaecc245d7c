package io.leasehold.bench;

import io.leasehold.bench.report.Comparison;
import io.leasehold.bench.report.StallComparison;
import io.leasehold.bench.suite.Plan;
import java.util.List;

/**
 * What one backend's suite produced, or why it could not run.
 *
 * @param proxies  what each proxy process cost over the suite
 * @param stall    the owner-stall runs, or null when none were made
 * @param failure  null when the suite ran; otherwise the reason it stopped
 */
record SuiteResult(String backend, Plan plan, List<Comparison> comparisons, List<ProxySummary> proxies,
        StallComparison stall, String failure) {

    static SuiteResult failed(String backend, Plan plan, String failure) {
        return new SuiteResult(backend, plan, List.of(), List.of(), null, failure);
    }
}
