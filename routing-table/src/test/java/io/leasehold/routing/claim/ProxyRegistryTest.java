package io.leasehold.routing.claim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.leasehold.routing.etcd.EtcdBytes;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The tier's proxies register on their own leases and count each other, against a real etcd. */
@ExtendWith(EtcdExtension.class)
class ProxyRegistryTest {
    private static final Duration TTL = Duration.ofSeconds(2);
    private static final Duration ROUND = Duration.ofMillis(100);
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @Test
    void proxiesCountEachOtherAndTheCountFollowsAProxyThatStops(EtcdServer etcd) throws Exception {
        KeySchema keys = new KeySchema("/registry-test-" + System.nanoTime());
        try (Client client = Client.builder().endpoints(etcd.endpoint()).build();
             ProxyRegistry first = ProxyRegistry.start(client, keys, "proxy-a", TTL, ROUND)) {
            await().atMost(PATIENCE).until(() -> registered(client, keys) == 1);
            try (ProxyRegistry second = ProxyRegistry.start(client, keys, "proxy-b", TTL, ROUND)) {
                await().atMost(PATIENCE).until(() -> first.liveProxies() == 2 && second.liveProxies() == 2);
                assertThat(client.getKVClient().get(EtcdBytes.of(keys.proxyKey("proxy-b"))).get(10, TimeUnit.SECONDS)
                        .getKvs().get(0).getLease()).as("registered on a lease").isNotZero();
            }
            await().atMost(PATIENCE).until(() -> first.liveProxies() == 1);
        }
    }

    @Test
    void whileEtcdIsUnreachableTheLastCountStays() throws Exception {
        // An etcd of its own: this test stops it.
        try (EtcdServer etcd = EtcdServer.start();
             Client client = Client.builder().endpoints(etcd.endpoint()).build()) {
            KeySchema keys = new KeySchema("/registry-outage");
            try (ProxyRegistry first = ProxyRegistry.start(client, keys, "proxy-a", TTL, ROUND);
                 ProxyRegistry second = ProxyRegistry.start(client, keys, "proxy-b", TTL, ROUND)) {
                await().atMost(PATIENCE).until(() -> first.liveProxies() == 2);

                etcd.stop();
                // Longer than a round waits for etcd (5 s), so rounds fail meanwhile: the count must
                // not fall back to this proxy alone.
                await().during(Duration.ofSeconds(8)).atMost(PATIENCE)
                        .until(() -> first.liveProxies() == 2 && second.liveProxies() == 2);
            }
        }
    }

    private static long registered(Client client, KeySchema keys) throws Exception {
        return client.getKVClient().get(EtcdBytes.of(keys.proxiesPrefix()),
                GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(10, TimeUnit.SECONDS).getCount();
    }
}
