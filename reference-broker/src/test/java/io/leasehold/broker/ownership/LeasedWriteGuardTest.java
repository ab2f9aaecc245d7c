package io.leasehold.broker.ownership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.Client;
import io.leasehold.routing.claim.OwnershipClaimer;
import io.leasehold.routing.keys.KeySchema;
import io.leasehold.routing.testing.EtcdExtension;
import io.leasehold.routing.testing.EtcdServer;
import io.leasehold.routing.testing.TcpRelay;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(EtcdExtension.class)
class LeasedWriteGuardTest {

    private static final KeySchema KEYS = new KeySchema("/guard-test");

    @Test
    void abandonedGrantIsNeverReusedAndItsEpochCanNoLongerCommit(EtcdServer etcd) throws Exception {
        try (Client client = Client.builder().endpoints(etcd.endpoint()).build();
             OwnershipClaimer claimer = OwnershipClaimer.start(client, KEYS, 1, Duration.ofSeconds(10))) {
            LeasedWriteGuard guard = new LeasedWriteGuard(claimer);
            WriteAccess.Granted first = granted(guard, "orders", 0);

            guard.abandon(first).get(10, TimeUnit.SECONDS);
            WriteAccess.Granted second = granted(guard, "orders", 0);

            assertThat(second.claim().epoch()).isGreaterThan(first.claim().epoch());
            assertThat(second.writerTag()).isNotEqualTo(first.writerTag());
            assertThat(guard.commit(first, Map.of("/guard-test/x", "stale")).get(10, TimeUnit.SECONDS)).isFalse();
            assertThat(guard.commit(second, Map.of("/guard-test/x", "fresh")).get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void grantAbandonedWhileEtcdIsUnreachableIsNotReusedOnceEtcdIsBack(EtcdServer etcd) throws Exception {
        try (TcpRelay relay = TcpRelay.to(etcd);
             Client client = Client.builder().endpoints(relay.endpoint()).build();
             OwnershipClaimer claimer = OwnershipClaimer.start(client, KEYS, 2, Duration.ofSeconds(15))) {
            LeasedWriteGuard guard = new LeasedWriteGuard(claimer);
            WriteAccess.Granted first = granted(guard, "payments", 3);

            relay.cut();
            // The cut may also end the session; either way the abandoned epoch must not come back.
            var abandoning = guard.abandon(first);
            relay.restore();
            abandoning.handle((ignored, error) -> null).get(20, TimeUnit.SECONDS);

            // A cut that ended the session leaves the claimer opening a new one for a moment.
            WriteAccess.Granted second = await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                    .until(() -> granted(guard, "payments", 3), granted -> true);
            assertThat(second.claim().epoch()).isGreaterThan(first.claim().epoch());
            assertThat(guard.commit(first, Map.of("/guard-test/y", "stale")).get(10, TimeUnit.SECONDS)).isFalse();
        }
    }

    private static WriteAccess.Granted granted(LeasedWriteGuard guard, String topic, int partition) throws Exception {
        WriteAccess access = guard.acquire(topic, partition).get(10, TimeUnit.SECONDS);
        assertThat(access).isInstanceOf(WriteAccess.Granted.class);
        return (WriteAccess.Granted) access;
    }
}
