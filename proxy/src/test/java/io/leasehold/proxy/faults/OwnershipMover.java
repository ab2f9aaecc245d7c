package io.leasehold.proxy.faults;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.keys.OwnerValue;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * Moves a partition's ownership to another broker the way an operator's rebalancer would, using
 * only the ownership contract: delete the lease key if it is still the current owner's, then
 * create it for the target broker on the target's own session lease (the lease its
 * {@code P/brokers/{id}} registration sits on). The target adopts the key on its next produce
 * (a claim finds it already names this broker on its lease); the old owner hears the deletion
 * and stops, and its fenced commits fail since the key's epoch changed.
 */
final class OwnershipMover {

    private final Client etcd;
    private final KeySchema keys;

    OwnershipMover(Client etcd, KeySchema keys) {
        this.etcd = etcd;
        this.keys = keys;
    }

    /** The registered brokers and the session lease each registration is attached to. */
    Map<Integer, Long> brokerLeases() throws Exception {
        Map<Integer, Long> leases = new TreeMap<>();
        List<KeyValue> kvs = etcd.getKVClient().get(EtcdBytes.of(keys.brokersPrefix()),
                GetOption.builder().isPrefix(true).build()).get(10, TimeUnit.SECONDS).getKvs();
        for (KeyValue kv : kvs) {
            String key = EtcdBytes.text(kv.getKey());
            leases.put(Integer.parseInt(key.substring(key.lastIndexOf('/') + 1)), kv.getLease());
        }
        return leases;
    }

    /**
     * Hands the partition from its current owner to the next registered broker. Returns the new
     * owner, or empty when the partition had no owner or a broker claimed it in between.
     */
    OptionalInt moveToNextBroker(String topic, int partition) throws Exception {
        String key = keys.partitionLeaseKey(topic, partition);
        List<KeyValue> current = etcd.getKVClient().get(EtcdBytes.of(key)).get(10, TimeUnit.SECONDS).getKvs();
        if (current.isEmpty()) {
            return OptionalInt.empty();
        }
        KeyValue held = current.get(0);
        int owner = OwnerValue.parse(EtcdBytes.text(held.getValue())).orElse(-1);
        Map<Integer, Long> leases = brokerLeases();
        List<Integer> others = leases.keySet().stream().filter(id -> id != owner).toList();
        if (others.isEmpty()) {
            return OptionalInt.empty();
        }
        int target = others.get(Math.floorMod(owner + partition, others.size()));
        boolean deleted = etcd.getKVClient().txn()
                .If(new Cmp(EtcdBytes.of(key), Cmp.Op.EQUAL, CmpTarget.modRevision(held.getModRevision())))
                .Then(Op.delete(EtcdBytes.of(key), DeleteOption.DEFAULT))
                .commit().get(10, TimeUnit.SECONDS).isSucceeded();
        if (!deleted) {
            return OptionalInt.empty();
        }
        boolean created = etcd.getKVClient().txn()
                .If(new Cmp(EtcdBytes.of(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(EtcdBytes.of(key), EtcdBytes.of(OwnerValue.encode(target)),
                        PutOption.builder().withLeaseId(leases.get(target)).build()))
                .commit().get(10, TimeUnit.SECONDS).isSucceeded();
        return created ? OptionalInt.of(target) : OptionalInt.empty();
    }
}
