package io.leasehold.testing;

import io.leasehold.audit.AuditVerdict;
import io.leasehold.audit.OffsetAuditor;
import io.leasehold.audit.ProduceJournal;
import io.leasehold.audit.TopicReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs the offset auditor over a {@link LocalCluster}: one read pass through every running
 * broker and every running proxy, so a broker or proxy that serves different records at an
 * offset than the others shows up as an overlap.
 */
public final class ClusterAudit {

    private final LocalCluster cluster;
    private final TopicReader reader;

    /** Audits {@code cluster} with read passes bounded by {@code passTimeout}. */
    public ClusterAudit(LocalCluster cluster, Duration passTimeout) {
        this.cluster = cluster;
        this.reader = new TopicReader(passTimeout, Duration.ofSeconds(5), Map.of());
    }

    /** Reads every journaled topic back and compares; duplicates fail the audit unless tolerated. */
    public AuditVerdict audit(ProduceJournal journal, boolean duplicatesTolerated) {
        return new OffsetAuditor(duplicatesTolerated).readAndAudit(reader, readThrough(), journal.entries());
    }

    /** The addresses read through: running brokers, then running proxies. */
    public List<String> readThrough() {
        List<String> addresses = new ArrayList<>();
        cluster.brokers().stream().filter(BrokerProcess::isAlive).forEach(broker -> addresses.add(broker.address()));
        cluster.proxies().stream().filter(ProxyProcess::isAlive).forEach(proxy -> addresses.add(proxy.address()));
        return addresses;
    }
}
