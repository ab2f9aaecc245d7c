package io.leasehold.proxy.exchange;

import org.apache.kafka.common.protocol.Errors;

/**
 * Which entries of a partition-keyed request (a topic's partitions, or a group) the client may
 * touch: a refused entry is answered with the returned error and never sent to a broker, while
 * the rest of the request goes through.
 */
@FunctionalInterface
public interface EntryAccess {

    /** The error to answer for entries of {@code name} (a topic or group name), or null to send them on. */
    Errors refusal(String name);

    /** Every entry goes through (authorization off). */
    static EntryAccess everything() {
        return name -> null;
    }
}
