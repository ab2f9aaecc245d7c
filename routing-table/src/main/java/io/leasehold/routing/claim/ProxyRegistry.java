package io.leasehold.routing.claim;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.KeySchema;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Leasehold proxy's membership of its tier, so tier-wide quotas can be shared out: the proxy
 * registers under {@code P/proxies/{id}} on a lease of its own (the key goes when the proxy stops
 * or loses etcd for a TTL), and every {@code countInterval} counts the registrations under
 * {@code P/proxies/}. A lost lease is replaced by a new one, with the key put again, on the next
 * round. While etcd cannot be reached the last count stays in force: a proxy neither takes the
 * whole quota because it is cut off nor divides by peers it cannot see.
 */
public final class ProxyRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProxyRegistry.class);
    /** How long one etcd call may take before this round gives up and keeps the last count. */
    private static final Duration ETCD_TIMEOUT = Duration.ofSeconds(5);

    private final Client client;
    private final KeySchema keys;
    private final String proxyId;
    private final Duration leaseTtl;
    private final ScheduledExecutorService thread;
    /** Only the registry's thread replaces it. */
    private LeaseSession session;
    /** Starts at one, this proxy, until etcd says otherwise. */
    private volatile int liveProxies = 1;

    private ProxyRegistry(Client client, KeySchema keys, String proxyId, Duration leaseTtl) {
        this.client = client;
        this.keys = keys;
        this.proxyId = proxyId;
        this.leaseTtl = leaseTtl;
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread registry = new Thread(runnable, "leasehold-proxy-registry");
            registry.setDaemon(true);
            return registry;
        });
    }

    /**
     * Registers {@code proxyId} (once now, so the count is known before the first client) and
     * keeps it registered and counting every {@code countInterval}.
     */
    public static ProxyRegistry start(Client client, KeySchema keys, String proxyId, Duration leaseTtl,
                                      Duration countInterval) {
        keys.proxyKey(proxyId);
        ProxyRegistry registry = new ProxyRegistry(client, keys, proxyId, leaseTtl);
        registry.thread.execute(registry::refresh);
        registry.thread.scheduleWithFixedDelay(registry::refresh, countInterval.toNanos(), countInterval.toNanos(),
                TimeUnit.NANOSECONDS);
        return registry;
    }

    /** The proxies registered at the last count that reached etcd (at least one: this proxy). */
    public int liveProxies() {
        return liveProxies;
    }

    private void refresh() {
        try {
            if (session == null || !session.isAlive()) {
                register();
            }
            long counted = client.getKVClient()
                    .get(EtcdBytes.of(keys.proxiesPrefix()), GetOption.builder().isPrefix(true).withCountOnly(true)
                            .build())
                    .get(ETCD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).getCount();
            int now = (int) Math.max(1, Math.min(Integer.MAX_VALUE, counted));
            if (now != liveProxies) {
                LOG.info("The proxy tier now has {} live proxies (was {})", now, liveProxies);
                liveProxies = now;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.warn("Cannot count the proxy tier in etcd, keeping the last count ({}): {}", liveProxies,
                    e.toString());
        }
    }

    private void register() throws Exception {
        LeaseSession opened = LeaseSession.open(client.getLeaseClient(), leaseTtl, ETCD_TIMEOUT, (lost, reason) ->
                LOG.warn("Proxy registration {} lost ({}); registering again", proxyId, reason));
        try {
            client.getKVClient().put(EtcdBytes.of(keys.proxyKey(proxyId)), EtcdBytes.of(proxyId),
                    PutOption.builder().withLeaseId(opened.leaseId()).build())
                    .get(ETCD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (Exception e) {
            opened.close();
            throw e;
        }
        session = opened;
    }

    /** Stops counting and removes the registration now (if etcd is reachable; else its lease runs out). */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            // The thread may be putting the key on a new lease: close that one, not an older one.
            thread.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (session != null) {
            session.close();
        }
    }
}
