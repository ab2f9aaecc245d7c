/**
 * The offset auditor: an audited producer workload that journals every send and its outcome, a
 * read-back of the topic with a real consumer, and the comparison of the two that finds
 * overlapping offsets, lost acknowledged records, duplicates and gaps.
 */
package io.leasehold.audit;
