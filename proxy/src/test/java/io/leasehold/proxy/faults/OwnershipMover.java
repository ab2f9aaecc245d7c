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

    /** What one handover did. */
    record Handover(boolean released, OptionalInt newOwner) {
    }

    /** Owner broker id by partition, for every owned partition of {@code topic}, in one read. */
    Map<Integer, Integer> partitionOwners(String topic) throws Exception {
        String prefix = keys.partitionLeasesPrefix() + topic + "/";
        Map<Integer, Integer> owners = new TreeMap<>();
        for (KeyValue kv : etcd.getKVClient().get(EtcdBytes.of(prefix), GetOption.builder().isPrefix(true).build())
                .get(10, TimeUnit.SECONDS).getKvs()) {
            String key = EtcdBytes.text(kv.getKey());
            OptionalInt owner = OwnerValue.parse(EtcdBytes.text(kv.getValue()));
            if (owner.isPresent()) {
                owners.put(Integer.parseInt(key.substring(prefix.length())), owner.getAsInt());
            }
        }
        return owners;
    }

    /**
     * Takes the partition from its current owner (deletes the key if it is still the one read)
     * and offers it to the next registered broker. A produce in between may let some broker
     * claim the partition first; either way it changed hands under a new epoch.
     */
    Handover handOver(String topic, int partition) throws Exception {
        String key = keys.partitionLeaseKey(topic, partition);
        List<KeyValue> current = etcd.getKVClient().get(EtcdBytes.of(key)).get(10, TimeUnit.SECONDS).getKvs();
        if (current.isEmpty()) {
            return new Handover(false, OptionalInt.empty());
        }
        KeyValue held = current.get(0);
        int owner = OwnerValue.parse(EtcdBytes.text(held.getValue())).orElse(-1);
        Map<Integer, Long> leases = brokerLeases();
        List<Integer> others = leases.keySet().stream().filter(id -> id != owner).toList();
        boolean released = etcd.getKVClient().txn()
                .If(new Cmp(EtcdBytes.of(key), Cmp.Op.EQUAL, CmpTarget.modRevision(held.getModRevision())))
                .Then(Op.delete(EtcdBytes.of(key), DeleteOption.DEFAULT))
                .commit().get(10, TimeUnit.SECONDS).isSucceeded();
        if (!released || others.isEmpty()) {
            return new Handover(released, OptionalInt.empty());
        }
        int target = others.get(Math.floorMod(owner + partition, others.size()));
        boolean created = etcd.getKVClient().txn()
                .If(new Cmp(EtcdBytes.of(key), Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                .Then(Op.put(EtcdBytes.of(key), EtcdBytes.of(OwnerValue.encode(target)),
                        PutOption.builder().withLeaseId(leases.get(target)).build()))
                .commit().get(10, TimeUnit.SECONDS).isSucceeded();
        return new Handover(true, created ? OptionalInt.of(target) : OptionalInt.empty());
    }
}
