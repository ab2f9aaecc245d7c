package io.leasehold.proxy.quotas;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Which bytes share a quota, and that a proxy enforces its share of the tier's quota. */
class ClientQuotasTest {
    private static final long SECOND = 1_000_000_000L;
    /** Kafka's default window, whose 10 s minimum the expectations below are computed over. */
    private static final QuotaWindow KAFKA_WINDOW = new QuotaWindow(11, Duration.ofSeconds(1));
    private final AtomicLong clock = new AtomicLong(0);
    private final AtomicInteger liveProxies = new AtomicInteger(1);
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private ClientQuotas quotas(String file) throws QuotasFileException {
        QuotaRules rules = new QuotasFileParser().parse(file, "quotas.yaml");
        return new ClientQuotas(() -> rules, new TierShare(liveProxies::get), clock::get,
                new QuotaMetrics(registry), KAFKA_WINDOW);
    }

    @Test
    void theClientsOfOneUserShareItsQuota() throws QuotasFileException {
        ClientQuotas quotas = quotas("quotas:\n  - {user: slow, producerByteRate: 1000}\n");

        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "a", 10_000)).isZero();
        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "b", 10_000))
                .as("20000 bytes over the 10 s minimum window is 2000/s against 1000/s").isEqualTo(10_000);
    }

    @Test
    void theConfiguredWindowSetsTheBurstAndTheLongestThrottle() throws QuotasFileException {
        QuotaRules rules = new QuotasFileParser().parse("quotas:\n  - {user: slow, producerByteRate: 1000}\n",
                "quotas.yaml");
        ClientQuotas quotas = new ClientQuotas(() -> rules, new TierShare(liveProxies::get), clock::get,
                new QuotaMetrics(registry), new QuotaWindow(3, Duration.ofSeconds(1)));

        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "a", 2_000))
                .as("2000 bytes over the 2 s minimum window of 3 samples is the quota").isZero();
        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "a", 1_000))
                .as("3000 bytes over 2 s: 1500/s, half again the quota, for half the window").isEqualTo(1_000);
        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "a", 1_000_000))
                .as("never longer than the whole 3 s window").isEqualTo(3_000);
    }

    @Test
    void everyUserUnderTheDefaultEntryHasAQuotaOfItsOwn() throws QuotasFileException {
        ClientQuotas quotas = quotas("quotas:\n  - {user: \"<default>\", producerByteRate: 1000}\n");

        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "amy", "a", 10_000)).isZero();
        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "bob", "a", 10_000)).isZero();
        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "amy", "a", 10_000)).isEqualTo(10_000);
    }

    @Test
    void produceAndFetchBytesAreCountedApartAndUnquotaedUsersNotAtAll() throws QuotasFileException {
        ClientQuotas quotas = quotas("quotas:\n  - {user: etl, producerByteRate: 1000, consumerByteRate: 1000}\n");

        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "etl", "a", 10_000)).isZero();
        assertThat(quotas.record(QuotaType.CONSUMER_BYTE_RATE, "etl", "a", 10_000)).isZero();
        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "other", "a", 1_000_000_000)).isZero();
    }

    @Test
    void bytesAndThrottleTimeAreCountedPerUserUnderAQuota() throws QuotasFileException {
        ClientQuotas quotas = quotas("quotas:\n  - {user: slow, producerByteRate: 1000}\n");

        quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "a", 20_000);
        quotas.record(QuotaType.PRODUCER_BYTE_RATE, "fast", "a", 5_000);

        assertThat(registry.get("leasehold.quota.bytes").tags("user", "slow", "quota", "producer_byte_rate")
                .counter().count()).isEqualTo(20_000);
        assertThat(registry.get("leasehold.quota.throttle.seconds").tags("user", "slow").counter().count())
                .isEqualTo(10.0);
        assertThat(registry.find("leasehold.quota.bytes").tag("user", "fast").counter())
                .as("a user without a quota is not a metric's tag").isNull();
    }

    @Test
    void eachProxyEnforcesItsShareOfTheTiersQuota() throws QuotasFileException {
        ClientQuotas quotas = quotas("quotas:\n  - {user: slow, producerByteRate: 2000}\n");
        liveProxies.set(2);

        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "a", 10_000)).isZero();
        clock.addAndGet(SECOND);
        assertThat(quotas.record(QuotaType.PRODUCER_BYTE_RATE, "slow", "a", 10_000))
                .as("20000 bytes over 10 s is 2000/s, twice this proxy's share of 1000/s").isEqualTo(10_000);
    }
}
