package io.leasehold.routing.snapshot;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.function.ObjIntConsumer;

/**
 * The immutable owner table of one topic. Dense topics (partitions 0..n-1, the normal case) are an
 * array indexed by partition; a topic whose partition numbers are far apart is kept as sorted
 * parallel arrays, so one stray key with a huge partition number cannot make a huge array.
 * Either way a lookup allocates nothing.
 */
final class TopicOwners {

    /** A partition table stays dense while its highest index is below this multiple of its size (+ slack). */
    private static final int DENSE_FACTOR = 4;
    private static final int DENSE_SLACK = 64;

    private final Ownership[] dense;
    private final int[] sparsePartitions;
    private final Ownership[] sparseOwners;
    private final int size;

    private TopicOwners(Ownership[] dense, int[] sparsePartitions, Ownership[] sparseOwners, int size) {
        this.dense = dense;
        this.sparsePartitions = sparsePartitions;
        this.sparseOwners = sparseOwners;
        this.size = size;
    }

    Ownership owner(int partition) {
        if (dense != null) {
            return partition >= 0 && partition < dense.length ? dense[partition] : null;
        }
        int at = Arrays.binarySearch(sparsePartitions, partition);
        return at >= 0 ? sparseOwners[at] : null;
    }

    int size() {
        return size;
    }

    void forEach(ObjIntConsumer<Ownership> action) {
        if (dense != null) {
            for (int p = 0; p < dense.length; p++) {
                if (dense[p] != null) {
                    action.accept(dense[p], p);
                }
            }
        } else {
            for (int i = 0; i < sparsePartitions.length; i++) {
                action.accept(sparseOwners[i], sparsePartitions[i]);
            }
        }
    }

    Editor edit() {
        if (dense != null) {
            return new Editor(dense.clone(), size);
        }
        Editor editor = new Editor(new Ownership[8], 0);
        forEach((owner, partition) -> editor.put(partition, owner));
        return editor;
    }

    private static boolean fitsDense(int highest, int size) {
        return highest < (long) size * DENSE_FACTOR + DENSE_SLACK;
    }

    /**
     * A mutable copy used while building the next snapshot. It stays an array while the table is
     * dense and switches to a map once a partition number lies far beyond the table's size.
     */
    static final class Editor {
        private Ownership[] slots;
        private Map<Integer, Ownership> sparse;
        private int size;

        Editor() {
            this(new Ownership[8], 0);
        }

        private Editor(Ownership[] slots, int size) {
            this.slots = slots;
            this.size = size;
        }

        void put(int partition, Ownership owner) {
            if (sparse == null && !fitsDense(partition, size + 1)) {
                sparse = new HashMap<>();
                for (int p = 0; p < slots.length; p++) {
                    if (slots[p] != null) {
                        sparse.put(p, slots[p]);
                    }
                }
                slots = null;
            }
            if (sparse != null) {
                if (sparse.put(partition, owner) == null) {
                    size++;
                }
                return;
            }
            if (partition >= slots.length) {
                slots = Arrays.copyOf(slots, Math.max(partition + 1, slots.length * 2));
            }
            if (slots[partition] == null) {
                size++;
            }
            slots[partition] = owner;
        }

        /** Removes the partition's owner; returns true if there was one. */
        boolean remove(int partition) {
            boolean removed;
            if (sparse != null) {
                removed = sparse.remove(partition) != null;
            } else {
                removed = partition >= 0 && partition < slots.length && slots[partition] != null;
                if (removed) {
                    slots[partition] = null;
                }
            }
            if (removed) {
                size--;
            }
            return removed;
        }

        Ownership owner(int partition) {
            if (sparse != null) {
                return sparse.get(partition);
            }
            return partition >= 0 && partition < slots.length ? slots[partition] : null;
        }

        int size() {
            return size;
        }

        /** The immutable table, or null when the topic has no owned partition left. */
        TopicOwners build() {
            if (size == 0) {
                return null;
            }
            int highest = -1;
            if (sparse == null) {
                for (int p = slots.length - 1; p >= 0 && highest < 0; p--) {
                    if (slots[p] != null) {
                        highest = p;
                    }
                }
            } else {
                for (int p : sparse.keySet()) {
                    highest = Math.max(highest, p);
                }
            }
            if (fitsDense(highest, size)) {
                Ownership[] table = new Ownership[highest + 1];
                if (sparse == null) {
                    System.arraycopy(slots, 0, table, 0, highest + 1);
                } else {
                    sparse.forEach((p, owner) -> table[p] = owner);
                }
                return new TopicOwners(table, null, null, size);
            }
            int[] partitions = new int[size];
            int i = 0;
            if (sparse == null) {
                for (int p = 0; p < slots.length; p++) {
                    if (slots[p] != null) {
                        partitions[i++] = p;
                    }
                }
            } else {
                for (int p : sparse.keySet()) {
                    partitions[i++] = p;
                }
                Arrays.sort(partitions);
            }
            Ownership[] owners = new Ownership[size];
            for (int k = 0; k < size; k++) {
                owners[k] = owner(partitions[k]);
            }
            return new TopicOwners(null, partitions, owners, size);
        }
    }
}
