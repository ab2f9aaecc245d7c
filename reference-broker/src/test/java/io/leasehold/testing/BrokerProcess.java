package io.leasehold.testing;

/**
 * A reference broker JVM ({@code io.leasehold.broker.ReferenceBrokerMain}) of a
 * {@link LocalCluster}.
 */
public final class BrokerProcess extends ClusterMember {

    /** The broker's main class, launched by name. */
    public static final String MAIN_CLASS = "io.leasehold.broker.ReferenceBrokerMain";

    private final int id;

    BrokerProcess(int id, String host, int port, ManagedProcess process) {
        super(host, port, process);
        this.id = id;
    }

    /** The broker id ({@code --id}). */
    public int id() {
        return id;
    }

    @Override
    public String toString() {
        return "broker " + id + " at " + address() + " " + process();
    }
}
