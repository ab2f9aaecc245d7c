package io.leasehold.routing.snapshot;

import java.util.Objects;

/**
 * Where a registered broker listens.
 *
 * @param id   the broker id
 * @param host host name or IP address, never null
 * @param port TCP port, 1..65535
 * @param rack rack name, or null when the broker has none
 */
public record BrokerAddress(int id, String host, int port, String rack) {

    public BrokerAddress {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1..65535, got " + port + " for broker " + id);
        }
    }

    // Written out for the reason PartitionId gives: the proxy groups every request's partitions by broker.
    @Override
    public boolean equals(Object o) {
        return o instanceof BrokerAddress other && id == other.id && port == other.port && host.equals(other.host)
                && Objects.equals(rack, other.rack);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * id + host.hashCode()) + port) + Objects.hashCode(rack);
    }
}
