package io.leasehold.broker.produce;

import io.leasehold.broker.etcd.BrokerKeys;
import io.leasehold.broker.ownership.PartitionWriteGuard;
import io.leasehold.broker.storage.CommitSignals;
import io.leasehold.broker.storage.PartitionIndexStore;
import java.util.concurrent.Executor;

/**
 * What every partition writer of a broker shares.
 *
 * @param segmentBytes size at which a writer starts a new segment file
 */
record WriterResources(PartitionWriteGuard guard, PartitionIndexStore indexStore, BrokerKeys keys, Executor executor,
                       long segmentBytes, CommitSignals signals) {
}
