package io.leasehold.bench;

import io.leasehold.bench.report.Comparison;
import io.leasehold.bench.suite.Plan;
import java.util.List;

/**
 * What one backend's suite produced, or why it could not run.
 *
 * @param proxyPeakRssBytes the proxy's VmHWM at the end of the suite
 * @param failure           null when the suite ran; otherwise the reason it stopped
 * @param proxyThreads      Markdown table of the proxy's CPU by thread group over the suite, or null
 * @param proxyProfile      Markdown summary of the proxy's flight recording, or null
 */
record SuiteResult(String backend, Plan plan, List<Comparison> comparisons, long proxyPeakRssBytes, String failure,
        String proxyThreads, String proxyProfile) {

    static SuiteResult failed(String backend, Plan plan, List<Comparison> partial, String failure) {
        return new SuiteResult(backend, plan, partial, 0, failure, null, null);
    }
}
