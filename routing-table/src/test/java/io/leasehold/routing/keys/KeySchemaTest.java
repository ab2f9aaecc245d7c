package io.leasehold.routing.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.routing.snapshot.PartitionId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class KeySchemaTest {

    private final KeySchema keys = new KeySchema(KeySchema.DEFAULT_PREFIX);

    @Test
    void buildsTheContractKeysUnderThePrefix() {
        assertThat(keys.partitionLeaseKey("orders.v1", 7)).isEqualTo("/kafscale/partition-leases/orders.v1/7");
        assertThat(keys.partitionLeasesPrefix()).isEqualTo("/kafscale/partition-leases/");
        assertThat(keys.groupLeaseKey("billing")).isEqualTo("/kafscale/group-leases/billing");
        assertThat(keys.groupLeasesPrefix()).isEqualTo("/kafscale/group-leases/");
        assertThat(keys.brokerKey(3)).isEqualTo("/kafscale/brokers/3");
        assertThat(keys.brokersPrefix()).isEqualTo("/kafscale/brokers/");
        assertThat(keys.nextOffsetKey("orders", 2)).isEqualTo("/kafscale/topics/orders/partitions/2/next_offset");
        assertThat(keys.topicsPrefix()).isEqualTo("/kafscale/topics/");
        assertThat(keys.proxyKey("leasehold-0")).isEqualTo("/kafscale/proxies/leasehold-0");
        assertThat(keys.proxiesPrefix()).isEqualTo("/kafscale/proxies/");
    }

    @Test
    void aProxyIdIsOneKeySegment() {
        assertThatThrownBy(() -> keys.proxyKey("a/b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> keys.proxyKey("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void prefixIsConfigurableAndOneTrailingSlashIsIgnored() {
        assertThat(new KeySchema("/team-a/").partitionLeaseKey("t", 0)).isEqualTo("/team-a/partition-leases/t/0");
        assertThat(new KeySchema("/team-a").prefix()).isEqualTo("/team-a");
        assertThat(new KeySchema("").brokerKey(1)).isEqualTo("/brokers/1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"kafscale", "/a//", "/a b"})
    void rejectsMalformedPrefixes(String prefix) {
        assertThatThrownBy(() -> new KeySchema(prefix)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(prefix);
    }

    @Test
    void parsesWhatItBuilds() {
        assertThat(keys.parsePartitionLeaseKey(keys.partitionLeaseKey("a_b-C.9", 12)))
                .contains(new PartitionId("a_b-C.9", 12));
        assertThat(keys.parseGroupLeaseKey(keys.groupLeaseKey("my group/x"))).contains("my group/x");
        assertThat(keys.parseBrokerKey(keys.brokerKey(0))).hasValue(0);
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "/kafscale/partition-leases/orders",
        "/kafscale/partition-leases/orders/",
        "/kafscale/partition-leases//0",
        "/kafscale/partition-leases/orders/-1",
        "/kafscale/partition-leases/orders/+1",
        "/kafscale/partition-leases/orders/01",
        "/kafscale/partition-leases/orders/1x",
        "/kafscale/partition-leases/orders/2147483648",
        "/kafscale/partition-leases/orders/0/extra",
        "/kafscale/partition-leases/ord ers/0",
        "/kafscale/partition-leases/ord\u00e9rs/0",
        "/kafscale/partition-leases/../0",
        "/other/partition-leases/orders/0",
        "/kafscale/partition-leasesorders/0",
    })
    void rejectsMalformedPartitionKeys(String key) {
        assertThat(keys.parsePartitionLeaseKey(key)).isEmpty();
    }

    @Test
    void acceptsLargestPartitionAndRejectsOverlongTopics() {
        assertThat(keys.parsePartitionLeaseKey("/kafscale/partition-leases/t/2147483647"))
                .contains(new PartitionId("t", Integer.MAX_VALUE));
        assertThat(keys.parsePartitionLeaseKey("/kafscale/partition-leases/" + "t".repeat(249) + "/0")).isPresent();
        assertThat(keys.parsePartitionLeaseKey("/kafscale/partition-leases/" + "t".repeat(250) + "/0")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"/kafscale/brokers/", "/kafscale/brokers/x", "/kafscale/brokers/-3", "/kafscale/brokers/1/2",
        "/kafscale/brokers/007", "/kafscale/broker/1"})
    void rejectsMalformedBrokerKeys(String key) {
        assertThat(keys.parseBrokerKey(key)).isEmpty();
    }

    @Test
    void rejectsEmptyGroupKeys() {
        assertThat(keys.parseGroupLeaseKey("/kafscale/group-leases/")).isEmpty();
        assertThat(keys.parseGroupLeaseKey("/kafscale/brokers/1")).isEmpty();
        assertThat(keys.parseGroupLeaseKey(null)).isEmpty();
    }

    @Test
    void refusesToBuildKeysForIllegalNames() {
        assertThatThrownBy(() -> keys.partitionLeaseKey("a/b", 0)).hasMessageContaining("a/b");
        assertThatThrownBy(() -> keys.partitionLeaseKey("t", -1)).hasMessageContaining("-1");
        assertThatThrownBy(() -> keys.nextOffsetKey("", 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> keys.groupLeaseKey("")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> keys.brokerKey(-1)).hasMessageContaining("-1");
    }
}
