package io.leasehold.proxy.config;

import org.junit.jupiter.api.Test;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class ConfigKeyTest {

    @Test
    void environmentNameIsUpperSnakeOfThePath() {
        assertThat(new ConfigKey("listener", "advertisedHost").envName()).isEqualTo("LEASEHOLD_LISTENER_ADVERTISED_HOST");
        assertThat(new ConfigKey("limits", "maxInFlightPerConnection").envName())
                .isEqualTo("LEASEHOLD_LIMITS_MAX_IN_FLIGHT_PER_CONNECTION");
        assertThat(new ConfigKey("etcd", "endpoints").envName()).isEqualTo("LEASEHOLD_ETCD_ENDPOINTS");
    }

    @Test
    void knownKeysAreExactlyTheConfigRecordComponents() {
        Map<String, List<String>> fromRecords = new LinkedHashMap<>();
        for (RecordComponent section : ProxyConfig.class.getRecordComponents()) {
            fromRecords.put(section.getName(), Arrays.stream(section.getType().getRecordComponents())
                    .map(RecordComponent::getName).toList());
        }

        assertThat(ConfigKeys.SECTIONS).containsExactlyEntriesOf(fromRecords);
    }
}
