package io.leasehold.bench;

import io.leasehold.bench.report.Target;

/**
 * One proxy process over a whole suite.
 *
 * @param peakRssBytes its VmHWM at the end of the suite (0 if it was no longer running)
 * @param threads      Markdown table of its CPU by thread group, or null
 * @param profile      Markdown summary of its flight recording, or null
 */
record ProxySummary(Target target, long peakRssBytes, String threads, String profile) {
}
