package io.leasehold.proxy.owners;

/** How the proxy serves one API. */
public enum Route {
    /** Answered by the proxy itself (ApiVersions, FindCoordinator). */
    LOCAL,
    /** Topic metadata from a backend, cached and rewritten. */
    METADATA,
    /** Split by partition owner, merged. */
    PARTITIONED,
    /** Sent to the owner of the consumer group's lease. */
    GROUP,
    /** Sent to any live broker, response forwarded as is. */
    ANY_BROKER,
    /** Sent to any live broker, broker addresses in the response rewritten. */
    ANY_BROKER_REWRITTEN,
    /** Sent to every live broker, answers merged (each broker only knows its own part). */
    ALL_BROKERS
}
