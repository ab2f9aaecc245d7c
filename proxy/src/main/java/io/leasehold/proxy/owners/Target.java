package io.leasehold.proxy.owners;

import io.leasehold.routing.snapshot.BrokerAddress;
import io.leasehold.routing.snapshot.Ownership;

/**
 * Where one partition or group goes on one attempt: the broker, and the ownership the route
 * was based on ({@code null} when nobody owns it and a fallback broker was chosen), so a
 * rejection can invalidate exactly that route.
 */
public record Target(BrokerAddress broker, Ownership ownership) {
}
