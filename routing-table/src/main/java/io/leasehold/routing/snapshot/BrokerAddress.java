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
}
