package io.leasehold.proxy.tls;

import java.time.Instant;
import java.util.Map;

/**
 * The proxy's TLS material as loaded at start-up: the Kafka listener's server context and the
 * brokers' client context (each {@code null} when that side is plaintext), which follow their
 * files, and the etcd certificates' expiries (the jetcd client keeps what it read at start-up).
 */
public record ProxyTls(ReloadingTls listener, ReloadingTls backends, Map<String, Instant> etcdExpiries) {
    public ProxyTls {
        etcdExpiries = Map.copyOf(etcdExpiries);
    }

    /** Plaintext everywhere. */
    public static ProxyTls none() {
        return new ProxyTls(null, null, Map.of());
    }
}
